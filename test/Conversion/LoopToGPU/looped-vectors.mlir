// The looped form of a row (the form of a row kernel without a register-resident form: no
// size hints, a row wider than the registers at the asked lanes, `fast=0`) takes v
// consecutive columns a step: one vector load of each contiguous row input, the body once per
// column, one vector store of each contiguous output, then the scalar loop over the columns
// past the last full vector (all of them when the run-time guard fails: a row stride that is
// not a multiple of v, or a broadcast clamp min(j, c) with c + 1 < N). The report says the
// width of each row loop, or why it stays scalar.
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pipeline=gpu --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=NOHINT
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pipeline=gpu | FileCheck %s --check-prefix=IR
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384 threads-per-row=8 report})' 2>&1 >/dev/null | FileCheck %s --check-prefix=TPR8
// The unfused row reduction alone, scalar where asked, or where a known N is odd:
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,lower-loop-to-gpu{vector=1 report})' 2>&1 >/dev/null | FileCheck %s --check-prefix=SCALAR
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,lower-loop-to-gpu{looped-vectors=false report})' 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,lower-loop-to-gpu{fast=0 size-hints=M=64,N=13 report})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ODD
// With shared partials, a barrier follows the fill of the warp's partial rows (lane-strided),
// before the steps accumulate a lane's consecutive columns (racecheck found the hazard).
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu | FileCheck %s --check-prefix=FILL
// A bad value of the option is an error (exit 1).
// RUN: not morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{looped-vectors=maybe})' 2>&1 | FileCheck %s --check-prefix=BAD
// A CTA of 1024 threads per row (64 registers a thread) stays scalar: 4 columns a step ran
// 387.3 us against 347.7 scalar on the H200 (gelu_bwd_bias at 4096 x 16384, where the
// heuristic now streams the row in the reload form: reload.mlir, STREAM; `reload=false`
// keeps the looped form).
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4096,N=16384 reload=false report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=CTA
// Behind a register-resident form (its fallback for another N) the loops stay scalar and
// unreported.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=FAST
// The mapped lowering's lane and thread loops over a contiguous row take the same form; over
// 1-D rows (no row stride in the guard) the vector steps and the scalar tail both run (N = 67:
// 16 vectors of 4, then 3 columns).
// RUN: morf-opt %S/Inputs/looped-tail.mlir --lower-loop-to-gpu --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=MAPPED
// A loop that reads and writes the same row merges only the loads of the rows it does not
// write: the written row keeps its load and store per column, in order.
// RUN: morf-opt %S/Inputs/looped-inplace.mlir --lower-loop-to-gpu | FileCheck %s --check-prefix=INPLACE
//
// The kernels agree with the interpreter on the simulator: the vector steps with and without
// a scalar tail (N = 392 against v = 8: none; N = 13: all scalar), a row stride the guard
// rejects (N = 380 at v = 8), f32 rows (v = 4), a CTA per row, a 3-D row, the row reductions
// of the unfused pipeline (blocked partial sums) and max reductions.
// RUN: mkdir -p %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384 splits=16},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384 threads-per-row=8})' M=37,N=384 1e-2 %t/s1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{splits=16},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)' M=37,N=392 1e-2 %t/s2
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{splits=16},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)' M=37,N=13 1e-2 %t/s3
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{splits=16},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)' M=37,N=380 1e-2 %t/s4
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{splits=16},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)' M=37,N=102 1e-5 %t/s5
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4096,N=16384})' M=3,N=16392 1e-2 %t/s6
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/reduce3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{splits=16},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)' B=3,M=5,N=200 1e-5 %t/s7
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)' M=37,N=1000 1e-2 %t/s8
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/looped-tail.mlir 'builtin.module(lower-loop-to-gpu)' N=67 1e-5 %t/s10
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/looped-tail.mlir 'builtin.module(lower-loop-to-gpu)' N=3 1e-5 %t/s11
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/looped-tail.mlir 'builtin.module(lower-loop-to-gpu)' N=200 1e-5 %t/s12
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/mapped-row.mlir 'builtin.module(lower-loop-to-gpu)' M=5,N=2000 1e-5 %t/s13
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/looped-inplace.mlir 'builtin.module(lower-loop-to-gpu)' M=5,N=64 1e-5 %t/s14
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/looped-inplace.mlir 'builtin.module(lower-loop-to-gpu)' M=3,N=66 1e-5 %t/s15
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/colmax_rowsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=576000,N=384 threads-per-row=16})' M=37,N=384 1e-5 %t/s9

// NOHINT: schedule: @rmsnorm_fwd_k0: row_fused {{.*}} fast=no (from the heuristic)
// NOHINT-NEXT: note: @rmsnorm_fwd_k0: looped form, the row's loops in order: 8-element vectors; 8-element vectors

// The row sum: the guard (the row stride a multiple of 8), 8-element steps over the lanes,
// then the scalar columns from nvec * 8.
// The kernel is bounded at 80 registers a thread (three CTAs of 256 a SM) for ptxas.
// IR-LABEL: mgpu.func @rmsnorm_fwd_k0(
// IR-SAME: min_ctas_per_sm = 3
// IR: %[[LANE:.*]] = mgpu.lane_id : index
// IR: %[[REM:.*]] = mloop.rem %{{.*}}, %[[EIGHT:.*]] : index
// IR: %[[ALL:.*]] = mloop.div %{{.*}}, %[[EIGHT]] : index
// IR-NEXT: %[[NVEC:.*]] = mloop.select %{{.*}}, %[[ALL]], %{{.*}} : index
// IR-NEXT: %[[START:.*]] = mloop.mul %[[NVEC]], %[[EIGHT]] : index
// IR-NEXT: %[[TAIL:.*]] = mloop.add %[[START]], %[[LANE]] : index
// IR-NEXT: %[[PART:.*]] = mloop.for %[[G:.*]] = %[[LANE]] to %[[NVEC]] step %{{.*}} iter_args
// IR-NEXT: %[[J0:.*]] = mloop.mul %[[G]], %[[EIGHT]] : index
// IR: mgpu.load_vec %{{.*}}[%{{.*}}] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: mloop.for %{{.*}} = %[[TAIL]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[PART]]) -> (f32) {
// IR: mgpu.load %{{.*}}[%{{.*}}] {nc} : !mgpu.ptr<bf16>
// IR: mgpu.warp_reduce sum
// The output row: one 8-element store a step.
// IR: mgpu.store_vec %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] : !mgpu.ptr<bf16>

// TPR8: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=8 {{.*}} fast=no (from the heuristic)
// TPR8-NEXT: note: @rmsnorm_bwd_k0: row kept in a loop, not in registers: threads-per-row=8 gives 48 columns a thread, over the 32 the register-resident form holds
// TPR8-NEXT: note: @rmsnorm_bwd_k0: looped form, the row's loops in order: 8-element vectors; 8-element vectors

// SCALAR: note: @rmsnorm_fwd_k0: looped form, the row's loops in order: scalar (the option vector=1)

// BAD: pass 'lower-loop-to-gpu': option 'looped-vectors' expects true or false, got 'maybe'

// OFF: note: @rmsnorm_fwd_k0: looped form, the row's loops in order: scalar (the option looped-vectors=false)

// ODD: note: @rmsnorm_fwd_k0: no register-resident row form (the row is loaded in a loop): the option fast=0
// ODD-NEXT: note: @rmsnorm_fwd_k0: looped form, the row's loops in order: scalar (a row of 13 element(s) is not a multiple of 2)

// CTA: schedule: @gelu_bwd_bias_k0: row_fused threads=1024 threads_per_row=1024 {{.*}} fast=no (from the heuristic)
// CTA: note: @gelu_bwd_bias_k0: looped form, the row's loops in order: scalar (a thread of a CTA of 1024 may hold at most 64 registers: vector steps measured slower)

// FAST: schedule: @rmsnorm_bwd_k0: row_fused {{.*}} fast=yes(
// FAST-NOT: looped form

// MAPPED: schedule: @tail_k0: mapped threads=32 {{.*}} (from the IR)
// MAPPED-NEXT: note: @tail_k0: looped form, the row's loops in order: 4-element vectors; 4-element vectors; 4-element vectors

// INPLACE-LABEL: mgpu.func @inplace_k1(
// INPLACE: %{{.*}} = mgpu.load %[[Y:arg[0-9]+]][%{{.*}}] : !mgpu.ptr<f32>
// INPLACE: mgpu.load_vec %{{.*}}[%{{.*}}] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
// INPLACE: mgpu.store %{{.*}}, %[[Y]][%{{.*}}] : !mgpu.ptr<f32>
// INPLACE: %{{.*}} = mgpu.load %[[Y]][%{{.*}}] : !mgpu.ptr<f32>
// INPLACE: mgpu.store %{{.*}}, %[[Y]][%{{.*}}] : !mgpu.ptr<f32>
// INPLACE-NOT: mgpu.store_vec

// FILL-LABEL: mgpu.func @rmsnorm_bwd_k0
// FILL: mgpu.store %{{[0-9]+}}, %{{[0-9]+}}[%{{[0-9]+}}] : !mgpu.ptr<f32, 3>
// FILL-NEXT: mloop.yield
// FILL-NEXT: }
// FILL-NEXT: mgpu.barrier
// FILL: mgpu.load_vec
