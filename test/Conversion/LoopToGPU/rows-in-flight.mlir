// Register-resident row kernels keep a second row in flight per warp where the registers
// for it leave as many CTAs per SM (schedule.rs, `row_regs`): the row loop carries the next
// row's loads, issued (clamped to the split's last row) before the current row is computed.
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=768 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=TWO
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=MARGIN
// RUN: morf-opt %S/../../../examples/row_col_stats.mlir --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=64,N=256 rows-in-flight=2})' | FileCheck %s --check-prefix=IR
// RUN: not morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{rows-in-flight=3})' 2>&1 | FileCheck %s --check-prefix=BAD
// The per-row scalars ride along (forty-fourth session): rmsnorm_bwd's rstd[min(i, c)] is
// loaded for the first row before the loop and for the next row (at the same clamp) inside it,
// carried beside the rows, and the row's compute loads it nowhere else (loaded in the row, it
// kept one latency a row with two rows in flight).
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=200 partials=resident},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=200 rows-in-flight=2})' | FileCheck %s --check-prefix=SCALAR
// Asked for where it cannot apply, the report says so: the reload form (a CTA of 512 per row
// at N = 16384) and a staged ring (it keeps the rows ahead itself).
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384 partials=resident},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4096,N=16384 rows-in-flight=2 report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RELOAD
// RELOAD: schedule: @layernorm_bwd_k0: row_fused {{.*}} fast=yes(N=16384 vector=8 chunks=4 reload shared-accs)
// RELOAD: note: @layernorm_bwd_k0: rows-in-flight not taken: the reload form holds one pass's loads of one row at a time
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024 partials=132},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 rows-in-flight=2 staged-rows=4 report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGED
// STAGED: schedule: @layernorm_bwd_k0: row_fused {{.*}} staged_rows=4 fast=yes
// STAGED-NOT: rows_in_flight=2
// STAGED: note: @layernorm_bwd_k0: rows-in-flight not taken: the 4 staged rows keep the rows ahead in shared memory instead

// layernorm_bwd at N=768: one CTA of 256 per SM with one row or two, and the estimate for
// two rows (ptxas: 245) within the margin under a thread's 255 registers.
// TWO: schedule: @layernorm_bwd_k0: row_fused {{.*}} partials=shared rows_in_flight=2 fast=yes
// rmsnorm_bwd at N=1024: 190 estimated for two rows is not (ptxas spilled 16 bytes at 255).
// MARGIN: schedule: @rmsnorm_bwd_k0: row_fused {{.*}} partials=shared fast=yes
// MARGIN-NOT: rows_in_flight
// The report says why nothing is loaded ahead:
// MARGIN: note: @rmsnorm_bwd_k0: one row in flight: two need ~190 registers (266 with the margin), over the 255 a thread of 256 may hold
// row_col_stats: 126 registers (two CTAs per SM) against 142 (one): one row.
// ONE: schedule: @row_col_stats_k0: row_fused {{.*}} partials=shared stream_loads fast=yes
// ONE-NOT: rows_in_flight
// ONE: note: @row_col_stats_k0: one row in flight: two need ~142 registers (198 with the margin), 1 CTA(s) per SM instead of 2

// The first row's vector loads before the row loop, the next row's inside it (at
// min(i + warps, last row)), carried as iter_args.
// IR: mgpu.func @rmsnorm_fwd_k0
// IR: mgpu.load_vec
// IR: mloop.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[STEP:.*]] iter_args
// IR: %[[NEXT:.*]] = mloop.add %[[I]], %[[STEP]] : index
// IR: mloop.min %[[NEXT]], %{{.*}} : index
// IR: mgpu.load_vec

// BAD: option 'rows-in-flight' must be 0, 1 or 2, got 3

// SCALAR-LABEL: mgpu.func @rmsnorm_bwd_k0
// SCALAR: %[[R0:[0-9]+]] = mgpu.load %[[RSTD:arg[0-9]+]][%{{[0-9]+}}] {nc} : !mgpu.ptr<f32>
// SCALAR-NEXT: mloop.for {{.*}} iter_args({{.*}}, %{{.*}} = %[[R0]]) -> ({{.*}}, f32) {
// SCALAR: %[[R1:[0-9]+]] = mgpu.load %[[RSTD]][%{{[0-9]+}}] {nc} : !mgpu.ptr<f32>
// SCALAR-NOT: mgpu.load %[[RSTD]]
// SCALAR: mloop.yield {{.*}}, %[[R1]] : {{.*}}, f32
