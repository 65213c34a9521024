// lower-loop-to-gpu: one kernel per top-level nest, each mapping's structure.
// RUN: morf-opt %s --split-input-file --pipeline=gpu-unfused | FileCheck %s
// RUN: morf-opt %s --split-input-file --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{final=launch})' | FileCheck %s --check-prefix=LAUNCH

// Pointwise: one thread per element, grid-stride over the flattened domain.
// CHECK-LABEL: func.func @add
// CHECK: mgpu.launch @add_k0 blocks(%{{.*}}) threads(%{{.*}}) shared(%{{.*}}) args(
// CHECK: mgpu.func @add_k0({{.*}}) kernel attributes {max_threads = 256, morf.schedule = "ThreadPerPoint
// CHECK: %[[TID:.*]] = mgpu.thread_id : index
// CHECK: mloop.for %[[E:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: mgpu.load %{{.*}}[%{{.*}}] {nc} : !mgpu.ptr<f32>
// CHECK: mgpu.store %{{.*}}, %{{.*}}[%{{.*}}] : !mgpu.ptr<f32>
// CHECK: mgpu.return
func.func @add(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}, %b: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> tensor<?x?xf32> {
  %s = mtensor.add %a, %b : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// Row reduction: a warp per row, lane-strided partials, warp_reduce, store by lane 0.
// CHECK-LABEL: func.func @rowsum
// CHECK: mgpu.func @rowsum_k0({{.*}}morf.schedule = "RowReduction threads=256 threads-per-row=32
// CHECK: %[[LANE:.*]] = mgpu.lane_id : index
// CHECK: mloop.for
// CHECK: %[[FIRST:.*]] = mloop.cmp eq, %[[LANE]], %{{.*}} : index
// CHECK: mloop.for %{{.*}} = %[[LANE]] to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[R:.*]] = mgpu.warp_reduce sum
// CHECK: mgpu.if %[[FIRST]] {
// CHECK-NEXT: mgpu.store
func.func @rowsum(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> tensor<?xf32> {
  %s = mtensor.reduce sum %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Column reduction: split-K around an f32 workspace [blocks, N], one cooperative launch. The
// partial: a thread per (row block, column), the block's rows summed in order (two f32 rows
// loaded at a time, four of 16-bit ones), stored to the workspace; a grid barrier; the final
// in the same grid, at the same CTA size: 32 columns x R warps per CTA, warp partials in
// shared memory, combined in warp order by warp 0, which stores. Its loads of the workspace, written in the same kernel, are
// coherent ones (no `nc`). `final=launch` keeps two launches (LAUNCH).
// CHECK-LABEL: func.func @colsum
// CHECK: %[[WS:.*]] = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xf32>
// CHECK: mgpu.launch @colsum_k0 blocks({{.*}}) args({{.*}}%[[WS]]
// CHECK-NEXT: mloop.dealloc %[[WS]]
// CHECK: mgpu.func @colsum_k0({{.*}}cooperative, max_threads = 256, morf.schedule = "SplitPartial {{.*}} split-rows=256 stream-loads; grid barrier; FinalReduction threads=256 threads-per-row=4 rows-per-cta=64 vector=4
// CHECK: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-COUNT-2: mgpu.load %{{.*}}[%{{.*}}] {nc, stream} : !mgpu.ptr<f32>
// CHECK-NEXT: mloop.add
// CHECK: mloop.add
// CHECK: mgpu.store
// CHECK: mgpu.grid_barrier
// The final: lanes of 4 threads own 16-column segments (vector 4), 64 groups of them stride
// the split rows; the vector form runs when the column count is a multiple of 4.
// CHECK: %[[SM:.*]] = mgpu.shared_alloc {size = 1024} : !mgpu.ptr<f32, 3>
// CHECK: %[[LANE:.*]] = mgpu.lane_id : index
// CHECK: %[[WARP:.*]] = mgpu.warp_id : index
// CHECK: mgpu.if
// CHECK: mloop.for
// CHECK: mgpu.if
// CHECK: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: mgpu.load_vec %{{.*}}[%{{.*}}] : !mgpu.ptr<f32> -> f32, f32, f32, f32
// CHECK: mgpu.store %{{.*}}, %[[SM]][%{{.*}}] : !mgpu.ptr<f32, 3>
// CHECK: mgpu.barrier
// CHECK: mgpu.if
// CHECK: mgpu.if
// CHECK: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: mgpu.load %[[SM]][%{{.*}}] : !mgpu.ptr<f32, 3>
// CHECK: mgpu.store
// CHECK: mgpu.barrier
// The scalar form (odd column counts): one column per lane, warps stride the rows.
// CHECK: } else {
// CHECK: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: mgpu.load %{{.*}}[%{{.*}}] : !mgpu.ptr<f32>
// LAUNCH-LABEL: func.func @colsum
// LAUNCH: %[[WS:.*]] = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xf32>
// LAUNCH: mgpu.launch @colsum_k0 blocks({{.*}}) args({{.*}}%[[WS]]
// LAUNCH: mgpu.launch @colsum_k0_final blocks({{.*}}) args({{.*}}%[[WS]]
// LAUNCH-NEXT: mloop.dealloc %[[WS]]
// LAUNCH: mgpu.func @colsum_k0({{.*}}morf.schedule = "SplitPartial {{.*}} split-rows=256 stream-loads"
// LAUNCH: mgpu.func @colsum_k0_final({{.*}}max_threads = 512, morf.schedule = "FinalReduction threads=512 threads-per-row=8 rows-per-cta=64 vector=4
// LAUNCH: mgpu.load_vec %{{.*}}[%{{.*}}] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
func.func @colsum(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> tensor<?xf32> {
  %s = mtensor.reduce sum %a dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Reduction to rank 0: one CTA, block reduction through shared memory, thread 0 stores.
// CHECK-LABEL: func.func @total
// CHECK: mgpu.func @total_k0({{.*}}morf.schedule = "BlockReduction threads=1024
// CHECK: mgpu.shared_alloc {size = 32} : !mgpu.ptr<f32, 3>
// CHECK: mgpu.warp_reduce max
// CHECK: mgpu.barrier
// CHECK: mgpu.barrier
// CHECK: mgpu.if
// CHECK: mgpu.store
func.func @total(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> tensor<f32> {
  %s = mtensor.reduce max %a dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
