// lower-loop-to-gpu: one kernel per top-level nest, each mapping's structure.
// RUN: morf-opt %s --split-input-file --pipeline=gpu-unfused | FileCheck %s
// RUN: morf-opt %s --split-input-file --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{split-final=grid})' | FileCheck %s --check-prefix=GRID
// `split-final` takes grid or launch; anything else is an error, exit 1:
// RUN: not morf-opt %s --split-input-file --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{split-final=bogus})' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: option 'split-final' must be 'grid' or 'launch', got 'bogus'

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

// Column reduction: split-K, two launches around an f32 workspace [blocks, N]. The partial
// launch: a thread per (row block, column), rows of the block summed in order (two f32 rows
// loaded at a time, four of 16-bit ones), stored to the workspace; the final launch: 32
// columns x R warps per CTA, warp partials in shared memory, combined in warp order by warp 0,
// which stores.
// CHECK-LABEL: func.func @colsum
// CHECK: %[[WS:.*]] = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xf32>
// CHECK: mgpu.launch @colsum_k0 blocks({{.*}}) args({{.*}}%[[WS]]
// CHECK: mgpu.launch @colsum_k0_final blocks({{.*}}) args({{.*}}%[[WS]]
// CHECK-NEXT: mloop.dealloc %[[WS]]
// CHECK: mgpu.func @colsum_k0({{.*}}morf.schedule = "SplitPartial {{.*}} split-rows=256 stream-loads"
// CHECK: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-COUNT-2: mgpu.load %{{.*}}[%{{.*}}] {nc, stream} : !mgpu.ptr<f32>
// CHECK-NEXT: mloop.add
// CHECK: mgpu.store
// The final launch: lanes of 8 threads own 32-column segments (vector 4), 64 groups of them
// stride the split rows; the vector form runs when the column count is a multiple of 4.
// CHECK: mgpu.func @colsum_k0_final({{.*}}max_threads = 512, morf.schedule = "FinalReduction threads=512 threads-per-row=8 rows-per-cta=64 vector=4
// CHECK: %[[SM:.*]] = mgpu.shared_alloc {size = 2048} : !mgpu.ptr<f32, 3>
// CHECK: %[[LANE:.*]] = mgpu.lane_id : index
// CHECK: %[[WARP:.*]] = mgpu.warp_id : index
// CHECK: mgpu.if
// CHECK: mloop.for
// CHECK: mgpu.if
// CHECK: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: mgpu.load_vec %{{.*}}[%{{.*}}] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
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
// CHECK: mgpu.load %{{.*}}[%{{.*}}] {nc} : !mgpu.ptr<f32>
// `split-final=grid` (GRID): the same in one cooperative launch, the final behind a grid
// barrier in the partial's grid at its CTA size; its loads of the workspace, written in the
// same kernel, are coherent ones (no `nc`).
// GRID-LABEL: func.func @colsum
// GRID: %[[WS:.*]] = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xf32>
// GRID: mgpu.launch @colsum_k0 blocks({{.*}}) args({{.*}}%[[WS]]
// GRID-NEXT: mloop.dealloc %[[WS]]
// GRID: mgpu.func @colsum_k0({{.*}}cooperative, max_threads = 256, morf.schedule = "SplitPartial {{.*}} split-rows=256 stream-loads; grid barrier; FinalReduction threads=256 threads-per-row=4 rows-per-cta=64 vector=4
// GRID: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// GRID: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// GRID-COUNT-2: mgpu.load %{{.*}}[%{{.*}}] {nc, stream} : !mgpu.ptr<f32>
// GRID-NEXT: mloop.add
// GRID: mloop.add
// GRID: mgpu.store
// GRID: mgpu.grid_barrier
// The final: lanes of 4 threads own 16-column segments (vector 4), 64 groups of them stride
// the split rows; the vector form runs when the column count is a multiple of 4.
// GRID: %[[SM:.*]] = mgpu.shared_alloc {size = 1024} : !mgpu.ptr<f32, 3>
// GRID: %[[LANE:.*]] = mgpu.lane_id : index
// GRID: %[[WARP:.*]] = mgpu.warp_id : index
// GRID: mgpu.if
// GRID: mloop.for
// GRID: mgpu.if
// GRID: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// GRID: mgpu.load_vec %{{.*}}[%{{.*}}] : !mgpu.ptr<f32> -> f32, f32, f32, f32
// GRID: mgpu.store %{{.*}}, %[[SM]][%{{.*}}] : !mgpu.ptr<f32, 3>
// GRID: mgpu.barrier
// GRID: mgpu.if
// GRID: mgpu.if
// GRID: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// GRID: mgpu.load %[[SM]][%{{.*}}] : !mgpu.ptr<f32, 3>
// GRID: mgpu.store
// GRID: mgpu.barrier
// The scalar form (odd column counts): one column per lane, warps stride the rows.
// GRID: } else {
// GRID: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// GRID: mgpu.load %{{.*}}[%{{.*}}] : !mgpu.ptr<f32>
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
