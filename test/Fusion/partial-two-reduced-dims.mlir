// A column sum over two reduced dims (x[B, M, N] summed over B and M) fused as a partial
// into the pointwise kernel of the same domain: the partial index is the row-major flat
// position of *both* reduced ivs, `(b * M + m) div S`, and the workspace has
// `ceildiv(B * M, S)` rows. (It once split only `b div S`: with B <= S every column was one
// f32 chain over all B x M rows.) `lower-loop-to-gpu` collapses the two reduced dims into one
// flat row loop, `row div S` the partial's index, and maps it as a row kernel without
// reductions (RowFused: lanes of a row, register partials a split; it was a thread per
// (split, column) summing blocks of 256 rows, PartialPointwise, before the thirty-third
// session), not to one thread; by default (rows of 32 bytes) it takes the flat partials form
// instead (docs/conversion-loop-to-gpu.md, "Flat partials": CTAs of N x c threads over
// consecutive vectors of the flat rows, partials combined in shared memory). passes/tests/reduction_accuracy.rs checks the error on
// adversarial data.
// (`launch=1e-3`: every legal fusion pays, so the checks pin the form, not the cost ranking.)
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=64,M=65536,N=8 device=launch=1e-3},canonicalize,cse)' | FileCheck %s
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=64,M=65536,N=8 device=launch=1e-3},canonicalize,cse,lower-loop-to-gpu{size-hints=B=64,M=65536,N=8 flat-partials=false})' | FileCheck --check-prefix=GPU %s
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=64,M=65536,N=8 device=launch=1e-3},canonicalize,cse,lower-loop-to-gpu{size-hints=B=64,M=65536,N=8})' | FileCheck --check-prefix=FPART %s

// CHECK-LABEL: func.func @sum3
// CHECK-DAG:   %[[B:.*]] = mloop.dim %x, 0
// CHECK-DAG:   %[[M:.*]] = mloop.dim %x, 1
// CHECK-DAG:   %[[N:.*]] = mloop.dim %x, 2
// CHECK:       %[[BM:.*]] = mloop.mul %[[B]], %[[M]] : index
// CHECK:       %[[S:.*]] = mloop.constant [[SV:[0-9]+]] : index
// CHECK:       %[[NS:.*]] = mloop.div %{{.*}}, %[[S]] : index
// CHECK:       %workspace = mloop.alloc(%[[NS]], %[[N]]) : !mloop.buffer<?x?xf32>
// CHECK:       mloop.parallel (%[[IB:.*]], %[[IM:.*]], %[[IN:.*]]) = (%{{.*}}) to (%[[B]], %[[M]], %[[N]])
// CHECK:         %[[R:.*]] = mloop.mul %[[IB]], %[[M]] : index
// CHECK-NEXT:    %[[FLAT:.*]] = mloop.add %[[R]], %[[IM]] : index
// CHECK-NEXT:    %[[SPLIT:.*]] = mloop.div %[[FLAT]], %[[S]] : index
// CHECK-NEXT:    mloop.accumulate sum %{{.*}}, %workspace[%[[SPLIT]], %[[IN]]]
// CHECK:       } attributes {morf.kernel = {kind = "pointwise", split = [[SV]]}}
// CHECK:       mloop.reduce sum (%split) = (%{{.*}}) to (%[[NS]])

// GPU:     %[[ROWS:.*]] = mloop.mul %{{.*}}, %{{.*}} : index
// GPU:     mgpu.launch @sum3_k0
// GPU:     mgpu.func @sum3_k0({{.*}}) kernel attributes {{{.*}}morf.schedule = "RowFused {{.*}}partials=Shared fast: N=8 {{.*}}; grid barrier; FinalReduction
// GPU:       mgpu.store
// GPU-NOT: Sequential

// FPART:     mgpu.func @sum3_k0({{.*}}) kernel attributes {{{.*}}morf.schedule = "PartialPointwise threads=256 {{.*}}vector=4 {{.*}}; grid barrier; FinalReduction
// FPART:       mgpu.load_vec
// FPART:       mgpu.store_vec
// FPART:       mgpu.barrier
// FPART:       mgpu.grid_barrier
// FPART-NOT: Sequential

func.func @sum3(%x: tensor<?x?x?xf32> {morf.dims = ["B", "M", "N"]}) -> (tensor<?xf32>, tensor<?x?x?xf32>) {
  %c = mtensor.reduce sum %x dims [0, 1] : tensor<?x?x?xf32> -> tensor<?xf32>
  %e = mtensor.exp %x : tensor<?x?x?xf32>
  return %c, %e : tensor<?xf32>, tensor<?x?x?xf32>
}
