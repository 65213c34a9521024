// Register relief: three places where ptxas spilled under the register cap the schedule plans
// (`passes/tests/ptxas.rs` assembles every example at these shapes and fails on any spill),
// each relieved by the lowering without changing a result, and said in the schedule report.
//
// 1. The reload form without staged rows loads its row-invariant `[j]` vectors (the weight)
//    coherently, once a pass: ptxas hoisted read-only loads of them out of the row loop and held
//    a copy per pass across it (rmsnorm_bwd_f32 at 4096 x 16384, 512 threads: 68 bytes
//    spilled at the cap of 128; now 120 registers). The row inputs stay read-only (`{nc}`).
// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd_f32.mlir --pipeline=gpu --size-hints M=4096,N=16384 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=COH-REPORT
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd_f32.mlir --pipeline=gpu --size-hints M=4096,N=16384 | FileCheck %s --check-prefix=COH
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4096,N=16384 grid=3})' M=7,N=16384 1e-5 %t/coh
// With staged rows the weight stays read-only (ptxas keeps it in the loop there).
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=4096,N=16384 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=STAGED
//
// 2. A kernel holding an f32 row whose planned cap sits within a quarter of its register
//    estimate takes its early accumulates (rmsnorm_bwd_f32 at 32768 x 768, two CTAs of 256:
//    ~126 estimated, 40 bytes spilled under the cap of 128; now 126 registers, no spill). A
//    bf16 row (held packed) keeps the body's order.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd_f32.mlir --pipeline=gpu --size-hints M=32768,N=768 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=EARLY
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=32768,N=768},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=32768,N=768 grid=3})' M=301,N=768 1e-5 %t/early
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=32768,N=768 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=BF16
//
// 3. A final reduction merged behind a grid barrier into a row kernel that caps a thread
//    under 64 registers keeps two loads in flight a lane, not four (rmsnorm_bwd at
//    8388608 x 2, five CTAs of 256, 48 registers: 8 bytes spilled in the final part; now none;
//    six CTAs, 40 registers, since the plan dropped its margin in the forty-seventh session,
//    no spill either). (One row a thread, `packed-rows=1`: by default the rows are packed there
//    since the twenty-seventh session, at other registers.)
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 packed-rows=1 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=FINAL
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=300})' M=30001,N=2 1e-2 %t/final
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=WIDE

// COH-REPORT: schedule: @rmsnorm_bwd_k0: row_fused threads=512 {{.*}}fast=yes(N=16384 vector=4 chunks=8 reload shared-accs)
// COH-REPORT: note: @rmsnorm_bwd_k0: the reload form loads its row-invariant vectors coherently (ld.global), so that ptxas keeps them in the row loop rather than holding a copy per pass across it

// The weight (%arg9) loads without `nc`, eight vectors a pass; x and dy keep it.
// COH: mgpu.func @rmsnorm_bwd_k0(
// COH-NOT: mgpu.load_vec %arg9[%{{[0-9]+}}] {nc}
// COH-COUNT-8: mgpu.load_vec %arg9[%{{[0-9]+}}] : !mgpu.ptr<f32> -> f32, f32, f32, f32
// COH: mgpu.barrier
// COH-COUNT-8: mgpu.load_vec %arg9[%{{[0-9]+}}] : !mgpu.ptr<f32> -> f32, f32, f32, f32
// COH-NOT: mgpu.load_vec %arg9[%{{[0-9]+}}] {nc}
// COH: mgpu.return

// STAGED: schedule: @layernorm_bwd_k0: row_fused threads=512 {{.*}}staged_rows=3 fast=yes(N=16384 vector=8 chunks=4 reload)
// STAGED-NOT: coherently
// STAGED: schedule: @layernorm_bwd_k1

// EARLY: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=32 {{.*}}fast=yes(N=768 vector=4 chunks=6)
// EARLY: note: @rmsnorm_bwd_k0: early accumulates: the cap of 128 registers (2 CTA(s) of 256 a SM) sits within a quarter of the ~126 estimated, so the column partials that need no row reduction are taken before the first

// BF16: schedule: @rmsnorm_bwd_k0: row_fused
// BF16-NOT: early accumulates
// BF16: schedule: @rmsnorm_bwd_k1

// FINAL: schedule: @rmsnorm_bwd_k1: final_reduction threads=256
// FINAL: note: @rmsnorm_bwd_k1: the final reduction keeps 2 loads in flight a lane, not 4: the kernel it joins caps a thread at 40 registers
// FINAL: note: @rmsnorm_bwd_k1 runs in the grid of the launch before it, after a grid barrier (final=grid)

// WIDE: schedule: @rmsnorm_bwd_k1: final_reduction
// WIDE-NOT: loads in flight
// WIDE: runs in the grid of the launch before it
