// `final=tail`: the final reduction runs in the last CTAs of the row kernel's grid to finish
// their rows, behind an `mgpu.grid_tail`, instead of in every CTA behind a grid barrier. The
// merged kernel is `resident_grid` (a plain launch, its grid capped at the CTAs resident, as a
// cooperative one's is), not `cooperative`; the final's block index and grid size are the
// tail's rank and count (no `mgpu.block_id` or `mgpu.grid_dim` after it). Checked on the
// simulator against the interpreter, where more CTAs than the tail's arrive (an 8-SM device:
// 8 go on).
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=65536,N=200},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{final=tail report=true size-hints=M=65536,N=200})' 2>%t.report | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// The same nest under final=grid is one cooperative kernel with a grid barrier:
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=200 | FileCheck %s --check-prefix=GRID
// REQUIRES: numpy
// RUN: mkdir -p %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=65536,N=200},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{final=tail size-hints=M=65536,N=200 device=sms=8})' M=3001,N=200 1e-2 %t/ln

// CHECK: mgpu.func @rmsnorm_bwd_k0(
// CHECK-SAME: kernel attributes {max_threads = 256, min_ctas_per_sm = 4, min_ctas_planned, morf.bench, morf.schedule = "RowFused {{.*}}; grid tail of 132; FinalReduction {{.*}}", resident_grid}
// CHECK: %[[RANK:.*]], %[[COUNT:.*]] = mgpu.grid_tail {ctas = 132}
// CHECK-NOT: mgpu.block_id
// CHECK-NOT: mgpu.grid_dim
// CHECK: mloop.for %{{.*}} = %[[RANK]] to %{{.*}} step %[[COUNT]] {
// CHECK: mgpu.return
// CHECK-NOT: mgpu.func @rmsnorm_bwd_k1

// REPORT: note: @rmsnorm_bwd_k1 runs in the last CTAs of the launch before it to finish, after a grid tail (final=tail)

// GRID: kernel attributes {cooperative,
// GRID: mgpu.grid_barrier
// GRID-NOT: mgpu.grid_tail
