// The fused RMSNorm backward: a row-fused kernel (persistent grid over splits, a warp per
// row, partials in shared memory combined once per split) and the final reduction, which by
// default (final=grid) runs in the same cooperative kernel behind a grid barrier.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu | FileCheck %s
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=4096,N=1024 | FileCheck %s --check-prefix=HINTED
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{threads-per-row=256 grid=4})' | FileCheck %s --check-prefix=CTA

// CHECK: mloop.fill
// CHECK: mgpu.launch @rmsnorm_bwd_k0 blocks(%{{.*}}) threads(%{{.*}}) shared(%[[BYTES:.*]]) args(
// CHECK-NOT: mgpu.launch @rmsnorm_bwd_k1
// CHECK: mgpu.func @rmsnorm_bwd_k0({{.*}}) kernel attributes {cooperative, max_threads = 256, min_ctas_per_sm = 3, min_ctas_planned, morf.bench, morf.schedule = "RowFused threads=256 threads-per-row=32 rows-per-cta=8 {{.*}} partials=Shared; grid barrier; FinalReduction threads=256 threads-per-row=4 rows-per-cta=64 vector=4 {{.*}}"}
// CHECK: mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
// CHECK: %[[BID:.*]] = mgpu.block_id
// CHECK: %[[GDIM:.*]] = mgpu.grid_dim
// CHECK: mloop.for %[[S:.*]] = %[[BID]] to %{{.*}} step %[[GDIM]] {
// CHECK: mgpu.warp_reduce sum
// CHECK: mgpu.barrier
// CHECK: mgpu.barrier
// The final reduction: lanes of 4 threads own 16-column segments (vector 4), 64 groups of
// them stride the splits, the groups' partials combined in shared memory.
// CHECK: mgpu.grid_barrier
// CHECK: mgpu.shared_alloc {size = 1024} : !mgpu.ptr<f32, 3>
// CHECK: mgpu.barrier
// CHECK: mgpu.load %{{.*}} : !mgpu.ptr<f32, 3>
// CHECK: mgpu.barrier

// With N known (the register-resident form), the kernel stores each split's combined partial
// once: the workspace needs no fill.
// HINTED-NOT: mloop.fill
// HINTED: mgpu.launch @rmsnorm_bwd_k0
// HINTED: mgpu.func @rmsnorm_bwd_k0
// HINTED: mgpu.grid_barrier

// A CTA per row: block reductions, partials straight into the CTA's workspace row (added
// to it, so the identity fill stays).
// CTA: mloop.fill
// CTA: mgpu.func @rmsnorm_bwd_k0({{.*}}morf.schedule = "RowFused threads=256 threads-per-row=256 rows-per-cta=1 {{.*}} grid<=4 partials=Global; grid barrier; {{.*}}"}
// CTA-NOT: mgpu.dynamic_shared
// CTA: mgpu.shared_alloc {size = 32}
// CTA: mgpu.warp_reduce sum
// CTA: mgpu.barrier

// A CTA per row with N known: each thread holds its columns' partials through the split and
// stores them once into the split's workspace row, in 16-byte vectors (no load of it): no
// fill. The
// guarded slow form (N other than the hint at run time) writes the identity to its split's row
// first, then accumulates into it.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4096,N=1024 threads-per-row=256 grid=4})' | FileCheck %s --check-prefix=CTAN
// CTAN-NOT: mloop.fill
// CTAN: mgpu.func @rmsnorm_bwd_k0({{.*}}morf.schedule = "RowFused threads=256 threads-per-row=256 rows-per-cta=1 {{.*}} partials=Global {{.*}}fast: N=1024
// CTAN: mgpu.store_vec %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[W:arg[0-9]+]][%{{.*}}] : !mgpu.ptr<f32>
// CTAN-NEXT: mloop.add
// CTAN-NEXT: mgpu.store_vec %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[W]][%{{.*}}] : !mgpu.ptr<f32>
// CTAN-NOT: mgpu.load %[[W]][
// CTAN: } else {
// CTAN-NEXT: mloop.for %[[SPLIT:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CTAN-NEXT: %[[ROW:.*]] = mloop.mul %[[SPLIT]], %[[N:.*]] : index
// CTAN-NEXT: mloop.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CTAN-NEXT: %[[AT:.*]] = mloop.add %[[ROW]], %[[J]] : index
// CTAN-NEXT: mgpu.store %{{.*}}, %[[W]][%[[AT]]] : !mgpu.ptr<f32>
// CTAN: mgpu.barrier
// CTAN: mgpu.load %[[W]][
// CTAN: mgpu.grid_barrier
// Both forms on the simulator against the interpreter: the fast one at the hinted N, the slow
// one at N = 1000 (its guard fails), each with several splits a CTA.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=301,N=1024 splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=301,N=1024 threads-per-row=256 grid=3 staged-rows=1})' M=301,N=1024 1e-2 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=301,N=1024 splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=301,N=1024 threads-per-row=256 grid=3})' M=301,N=1000 1e-2 %t
