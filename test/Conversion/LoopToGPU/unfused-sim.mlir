// The unfused pipeline's vector forms (unfused-vector.mlir) on the simulator vs the
// interpreter through morf-run (relative L2 error within 1e-2 for bf16 outputs, 1e-5 for
// f32), with size hints that match the run-time sizes (vectors of 4 at N = 100, the row
// kernels' register-resident form), hints that do not (N = 67 for a hint of 64: every guard
// fails and the scalar forms run), N = 1 (no vectors), M = 1, and small grids (every thread
// loops over several vectors and row blocks).
// REQUIRES: numpy
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=7,N=100 grid=2})' M=7,N=100 1e-2 %t/0
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=64 grid=3 split-rows=16})' M=40,N=67 1e-2 %t/1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=1})' M=40,N=1 1e-2 %t/2
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=1,N=384})' M=1,N=384 1e-2 %t/3
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=96 grid=2 split-rows=16})' M=40,N=96 1e-2 %t/4
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=100 grid=2 split-rows=16})' M=40,N=100 1e-5 %t/5
// Splits of 7 rows (groups of four rows, then three and one left over; the last block of 5)
// and the reciprocal of a row's sum (softmax_fwd_colsum's column sum; the scalar form too,
// at N = 67 for a hint of 96).
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=64 grid=3 split-rows=7})' M=40,N=64 1e-2 %t/s7a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=100 grid=2 split-rows=7})' M=40,N=100 1e-5 %t/s7b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/softmax_fwd_colsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=96 grid=2 split-rows=7})' M=40,N=96 1e-2 %t/s7c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/softmax_fwd_colsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=96 grid=2 split-rows=7})' M=40,N=67 1e-2 %t/s7d
// The final in the partial's grid behind a grid barrier (`split-final=grid`).
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=96 grid=2 split-rows=7 split-final=grid})' M=40,N=96 1e-2 %t/sfg
// The `gpu-unfused` pipeline over a 3-D tensor: its reductions collapsed to one dimension
// (`loop-coalesce{ops=reductions}`), so the row means take the 2-D row forms (packed rows at
// N = 3, a warp per row at N = 96) and the column sums run over the B*M rows; compiled for
// other sizes than they run at.
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/reduce3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,loop-coalesce{ops=reductions},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=B=4096,M=2048,N=3 grid=3})' B=3,M=37,N=3 1e-5 %t/3d0
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/reduce3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,loop-coalesce{ops=reductions},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=B=64,M=1024,N=96 grid=2 split-rows=16})' B=2,M=7,N=96 1e-5 %t/3d1
// RUN: morf-opt %S/../../../examples/reduce3d.mlir --pipeline=gpu-unfused --size-hints B=4096,M=2048,N=3 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=COALESCED
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/softmax_fwd_colsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{grid=2 split-rows=16})' M=40,N=96 1e-2 %t/6
// The kernels those runs lower are the vector forms:
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=64 grid=3 split-rows=16})' | FileCheck %s
// CHECK: "RowFused {{.*}} fast: N=64 vector=8 chunks=1"
// CHECK: "SplitPartial {{.*}} vector=8 {{.*}} split-rows=16"
// CHECK: "ThreadPerPoint {{.*}} vector=8

// COALESCED: schedule: @reduce3d_k0: split_partial
// COALESCED: schedule: @reduce3d_k1: row_fused {{.*}}fast=yes(N=3 vector=3 chunks=1 packed-rows=4)
