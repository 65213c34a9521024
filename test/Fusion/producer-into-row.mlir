// A pointwise producer that the lowering materializes (it is returned), read by a row
// reduction and a column reduction: the row reduction recomputes it from the inputs, and the
// producer runs and stores in the row kernel's inner loop, where the column partial takes its
// value. One row kernel and the final, instead of the producer with the partial, the row
// reduction, and the final (`launch=1e-3`: every legal fusion pays, so the checks pin what
// the search builds, not the cost model's ranking). `recompute-producers=false` keeps the
// producer apart.
// RUN: morf-opt %s --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=65536,N=1024 device=launch=1e-3 recompute-producers=false' \
// RUN:   | FileCheck %s --check-prefix=OFF
// RUN: morf-opt %s --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=65536,N=1024 device=launch=1e-3 report' \
// RUN:   2>%t.report | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// RUN: morf-run %s --device sim --random M=37,N=100 --check --output-dir %t/a 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIM

// CHECK-LABEL: func.func @add_transpose_stats
// CHECK:         %[[S:.*]] = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xf32>
// CHECK:         mloop.parallel (%[[I:.*]]) =
// CHECK:           mloop.reduce sum (%[[K:.*]]) =
// CHECK-NOT:         mloop.load %[[S]]
// CHECK:             mloop.load %x[%[[I]], %[[K]]]
// CHECK:             mloop.load %y[%[[K]], %[[I]]]
// CHECK:           mloop.parallel (%[[J:.*]]) =
// CHECK:             %[[V:.*]] = mloop.add
// CHECK:             mloop.store %[[V]], %[[S]][%[[I]], %[[J]]]
// CHECK:             mloop.accumulate sum %[[V]], %{{.*}}
// CHECK:         } attributes {morf.kernel = {kind = "row-fused", {{(priced = "[^"]*", )?}}split = {{[0-9]+}}, style = "persistent"}}
// CHECK:         } attributes {morf.kernel = {kind = "final", {{(priced = "[^"]*", )?}}split = {{[0-9]+}}}}
// CHECK-NOT:     mloop.parallel

// REPORT: chosen plan: rowfused.persistent[nest0 + nest1 + partial(nest2, S={{[0-9]+}})] ; final(nest2, S={{[0-9]+}})

// Off: the producer is its own pointwise kernel; the row kernel (if the cost model fuses the
// column partial into it) loads the stored producer instead of recomputing it.
// OFF:         %[[S:.*]] = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xf32>
// OFF:         mloop.parallel
// OFF:           mloop.store %{{.*}}, %[[S]][
// OFF:         } attributes {morf.kernel = {kind = "pointwise"{{.*}}{{(, priced = "[^"]*")?}}}}
// OFF:         mloop.reduce sum
// OFF-NEXT:      mloop.load %[[S]][

// SIM: check result0: rel_err={{.*}} ok
// SIM: check result1: rel_err={{.*}} ok
// SIM: check result2: rel_err={{.*}} ok
// SIM-NOT: FAILED

func.func @add_transpose_stats(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}, %y: tensor<?x?xf32> {morf.dims = ["N", "M"]})
    -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %yt = mtensor.transpose %y perm [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %s = mtensor.add %x, %yt : tensor<?x?xf32>
  %r = mtensor.reduce sum %s dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c = mtensor.reduce sum %s dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %r, %c : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>
}
