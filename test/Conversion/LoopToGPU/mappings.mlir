// lower-loop-to-gpu: one kernel per top-level nest, each mapping's structure.
// RUN: morf-opt %s --split-input-file --pipeline=gpu-unfused | FileCheck %s

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

// Column reduction: a thread per column, a sequential loop over the rows.
// CHECK-LABEL: func.func @colsum
// CHECK: mgpu.func @colsum_k0({{.*}}morf.schedule = "ThreadPerPoint
// CHECK: mloop.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: mgpu.load
// CHECK: mloop.add
// CHECK-NOT: mgpu.warp_reduce
// CHECK: mgpu.store
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
