// The GPU level exported to gpu/nvvm/llvm: the fused RMSNorm backward after --pipeline=gpu.
// One gpu.module with an #nvvm.target holds the kernel; pointers are !llvm.ptr<1>, shared
// memory !llvm.ptr<3> globals; the grid barrier is the counter protocol of morf's PTX; the
// host function launches with gpu.launch_func, buffers passed as pointers.
//
// REQUIRES: mlir
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --emit=mlir | FileCheck %s
// RUN: morf-opt %s --emit=mlir | FileCheck %s --check-prefix=OPS
// The occupancy question that sizes the splits (`mgpu.resident_blocks`) becomes a call of a
// private declaration the runtime provides (upstream MLIR has no occupancy query).
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=576000,N=384 --emit=mlir | FileCheck %s --check-prefix=RES
// A kernel's register cap (`max_registers`, PTX `.maxnreg`) is NVVM's `nvvm.maxnreg`.
// RUN: morf-opt %S/../../Target/PTX/max-registers.mlir --emit=mlir | FileCheck %s --check-prefix=MAXNREG
// MAXNREG: gpu.func @capped({{.*}}) kernel attributes {nvvm.maxnreg = 72 : i32, nvvm.maxntid = array<i32: 800, 1, 1>, nvvm.minctasm = 1 : i32}
// A work loop (splits from a work counter) is an scf.while over the iteration: thread 0 takes
// the next iteration's ticket (an scf.if yielding it), the body runs in an scf.execute_region,
// then the ticket goes through a shared i64 between two barriers:
// RUN: morf-opt %S/../../Run/gpu-sim-work-loop.mlir --emit=mlir | FileCheck %s --check-prefix=WORK
// WORK:      scf.if %run {
// WORK-NEXT: %[[B:.*]] = gpu.block_id x
// WORK-NEXT: %{{.*}} = scf.while (%[[S:.*]] = %[[B]]) : (index) -> index {
// WORK-NEXT:   %[[MORE:.*]] = arith.cmpi slt, %[[S]], %{{.*}} : index
// WORK-NEXT:   scf.condition(%[[MORE]]) %[[S]] : index
// WORK-NEXT: } do {
// WORK-NEXT: ^bb0(%i: index):
// WORK:        %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// WORK-NEXT:   %[[T:.*]] = scf.if %[[FIRST]] -> (i64) {
// WORK-NEXT:     %[[CTR:.*]] = llvm.mlir.addressof @iters_work_count : !llvm.ptr<1>
// WORK:          %[[TK:.*]] = llvm.atomicrmw add %[[CTR]], %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i64
// WORK-NEXT:     scf.yield %[[TK]] : i64
// WORK-NEXT:   } else {
// WORK:        scf.execute_region {
// WORK:        scf.yield
// WORK-NEXT:   }
// WORK:        llvm.store %[[T]], %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<3>
// WORK:        llvm.store %{{.*}}, %{{.*}} atomic syncscope("device") monotonic {alignment = 8 : i64} : i64, !llvm.ptr<1>
// WORK:        gpu.barrier
// WORK-NEXT:   %[[SLOT:.*]] = llvm.mlir.addressof @iters_work_ticket : !llvm.ptr<3>
// WORK-NEXT:   %[[GOT:.*]] = llvm.load %[[SLOT]] {alignment = 8 : i64} : !llvm.ptr<3> -> i64
// WORK-NEXT:   gpu.barrier
// WORK:        scf.yield %{{.*}} : index
// WORK:      llvm.mlir.global internal @iters_work_count(0 : i64) {addr_space = 1 : i32, alignment = 8 : i64} : i64
// WORK-NEXT: llvm.mlir.global internal @iters_work_ticket() {addr_space = 3 : i32, alignment = 8 : i64} : i64
// (mlir-opt reads it: mlir-opt-reads.mlir.)

// CHECK:       module attributes {gpu.container_module} {
// CHECK-LABEL:   func.func @rmsnorm_bwd(%x: memref<?x?xbf16>
// CHECK:           %[[P:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK:           gpu.launch_func  @morf_kernels::@rmsnorm_bwd_k0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})  dynamic_shared_memory_size %{{.*}} args({{.*}}%[[P]] : !llvm.ptr<1>{{.*}}) {morf.cooperative}
// CHECK:         gpu.module @morf_kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
// The looped form's vector steps (no size hints: docs/conversion-loop-to-gpu.md, "Vectors in
// the looped form") are 16-byte vector loads; its register bound is nvvm.minctasm.
// CHECK:           gpu.func @rmsnorm_bwd_k0({{.*}}: !llvm.ptr<1>{{.*}}) kernel attributes {morf.cooperative, nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 3 : i32} {
// CHECK:             gpu.thread_id  x
// CHECK:             llvm.getelementptr
// CHECK:             llvm.load {{.*}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK:             llvm.load {{.*}} invariant : !llvm.ptr<1> -> bf16
// CHECK:             gpu.shuffle  xor
// CHECK:             llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK:             scf.while
// CHECK:             gpu.return
// CHECK:           llvm.mlir.global external @__morf_dynamic_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK:           llvm.mlir.global internal @rmsnorm_bwd_k0_grid_barrier(0 : i32) {addr_space = 1 : i32, alignment = 4 : i64} : i32

// A cluster kernel (`lower-loop-to-gpu{cluster=2}`): the cluster size becomes
// nvvm.cluster_dim on the gpu.func, the cluster barriers nvvm.cluster.arrive/wait, and a
// store into another CTA's shared memory an nvvm.mapa of the local address to
// shared::cluster (`!llvm.ptr<7>`) followed by a store.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=2048},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=2048 grid=8 cluster=2})' --emit=mlir | FileCheck %s --check-prefix=CLUSTER
// CLUSTER:     gpu.func @rmsnorm_bwd_k0({{.*}}) kernel attributes {nvvm.cluster_dim = array<i32: 2, 1, 1>,
// CLUSTER-NEXT:  nvvm.cluster.arrive.relaxed {aligned}
// CLUSTER:       nvvm.cluster.wait {aligned}
// CLUSTER:       %[[R:.*]] = arith.index_cast %{{.*}} : index to i32
// CLUSTER-NEXT:  %[[A:.*]] = nvvm.mapa %{{.*}}, %[[R]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CLUSTER-NEXT:  llvm.store %{{.*}}, %[[A]] {{.*}}: f32, !llvm.ptr<7>
// CLUSTER:       nvvm.cluster.arrive {aligned}
// CLUSTER-NEXT:  nvvm.cluster.wait {aligned}

// RES-DAG: %{{.*}} = call @__morf_resident_blocks_0(%{{.*}}, %{{.*}}) : (index, index) -> index
// RES-DAG: func.func private @__morf_resident_blocks_0(index, index) -> index attributes {morf.kernel = @morf_kernels::@rmsnorm_bwd_k0}

// OPS-LABEL: gpu.func @k(
// OPS:         %{{.*}} = llvm.load %{{.*}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// OPS:         llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// OPS:         nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// OPS:         nvvm.cp.async.commit.group
// OPS:         nvvm.cp.async.wait.group 0
// OPS:         scf.if %{{.*}} {
// OPS:         gpu.barrier
// OPS:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>

mgpu.func @k(%p: !mgpu.ptr<f32>, %n: index) kernel attributes {max_threads = 128 : i64} {
  %t = mgpu.thread_id : index
  %c4 = mloop.constant 4 : index
  %i = mloop.mul %t, %c4 : index
  %a, %b, %c, %d = mgpu.load_vec %p[%i] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
  %s = mloop.add %a, %b : f32
  %old = mgpu.atomic_rmw add %s, %p[%t] : !mgpu.ptr<f32>
  %sh = mgpu.shared_alloc {size = 512 : i64} : !mgpu.ptr<f32, 3>
  mgpu.copy_async %sh[%i], %p[%i] {width = 4 : i64} : !mgpu.ptr<f32, 3>, !mgpu.ptr<f32>
  mgpu.copy_async_commit
  mgpu.copy_async_wait {pending = 0 : i64}
  %z = mloop.constant 0 : index
  %first = mloop.cmp eq, %t, %z : index
  mgpu.if %first {
    mgpu.store %c, %p[%z] : !mgpu.ptr<f32>
    mgpu.yield
  }
  mgpu.barrier
  mgpu.store_vec %c, %d, %p[%i] : !mgpu.ptr<f32>
  mgpu.return
}
