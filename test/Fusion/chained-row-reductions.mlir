// Chained row reductions share one row kernel: a row reduction whose result feeds another row
// reduction over the same rows (softmax forward: the max, then the sum of exp(x - max), then
// the divide; layernorm forward: the mean, then the variance of x - mean, then the
// normalization) becomes one `row-fused` nest where each result is a value of the row loop.
// Whether it wins is the cost model's call (a chain of dependent reductions costs the row
// latency): `device=launch=1e-3` makes every legal fusion pay, so these checks pin what the
// search builds; the report at the default device lists the one-kernel plan among the plans.
// RUN: morf-opt %s --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=65536,N=1024 device=launch=1e-3' | FileCheck %s
// RUN: morf-opt %s --lower-tensor-to-loop --fuse-mixed-reductions='size-hints=M=65536,N=1024 report' \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: morf-opt %S/../../examples/layernorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024 device=launch=1e-3},canonicalize,cse)' \
// RUN:   | FileCheck %s --check-prefix=LN
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024 device=launch=1e-3},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024})' \
// RUN:   | FileCheck %s --check-prefix=GPU
// RUN: morf-run %s --device sim --random M=37,N=100 --check --output-dir %t/a 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIM

// CHECK-LABEL: func.func @softmax_fwd
// CHECK:         mloop.parallel (%[[I:.*]]) =
// CHECK:           %[[MAX:.*]] = mloop.reduce max
// CHECK:           %[[SUM:.*]] = mloop.reduce sum
// CHECK:             mloop.sub %{{.*}}, %[[MAX]] : f32
// CHECK:           mloop.parallel (%[[J:.*]]) =
// CHECK:             mloop.sub %{{.*}}, %[[MAX]] : f32
// CHECK:             mloop.div %{{.*}}, %[[SUM]] : f32
// CHECK:             mloop.store %{{.*}}[%[[I]], %[[J]]]
// CHECK:         } attributes {morf.kernel = {kind = "row-fused", style = "persistent"}}
// CHECK-NOT:     mloop.parallel
// CHECK:         func.return

// REPORT: plans considered
// REPORT: {{^     }}rowfused.persistent[nest0 + nest1 + nest2]{{$}}

// LN-LABEL: func.func @layernorm_fwd
// LN:         mloop.parallel
// LN:           %[[MEAN:.*]] = mloop.div
// LN:           mloop.reduce sum
// LN:             mloop.sub %{{.*}}, %[[MEAN]] : f32
// LN:           mloop.rsqrt
// LN:           mloop.parallel
// LN:         } attributes {morf.kernel = {kind = "row-fused", style = "persistent"}}
// LN-NOT:     mloop.parallel
// LN:         func.return

// One kernel, one launch.
// GPU:     mgpu.func @softmax_fwd_k0
// GPU-NOT: mgpu.func @softmax_fwd_k1

// SIM: check result0: rel_err={{.*}} ok
// SIM-NOT: FAILED

func.func @softmax_fwd(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> tensor<?x?xf32> {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %mx = mtensor.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %mxb = mtensor.broadcast %mx dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xs = mtensor.sub %x, %mxb : tensor<?x?xf32>
  %e = mtensor.exp %xs : tensor<?x?xf32>
  %s = mtensor.reduce sum %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %sb = mtensor.broadcast %s dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %y = mtensor.div %e, %sb : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
