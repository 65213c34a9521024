// Packed rows (`packed-rows=R`, a tuner knob; by default where the kernel writes such rows): a thread per row whose row is
// one vector of the thread's (N x bytes <= 8 here; odd rows such as N = 3: packed-rows-odd.mlir)
// takes R consecutive rows at once, with one 16-byte load of each row input (R rows are
// contiguous) and vector loads of its per-row
// scalars (`rstd[i]`, behind a broadcast's clamp the group checks), computes the rows one by
// one from their slices, and stores each row output of the group as one vector. A group of R
// rows at either end of a split (a split of a size set at run time may start mid-group)
// computes each of its rows inside the split alone. Asked for, packing replaces the
// heuristic's second row in flight, and may take more rows than 16 bytes hold (up to 128
// bytes a row input: 4 rows of N = 8). Where it cannot apply, the report says why. Each row
// input is read once, so the packed loads of the full-rank inputs stream (`{stream}`:
// evict-first) unless `stream-loads=false`.
// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=2 packed-rows=4 report=true})' 2>&1 >%t/bwd.mlir | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=IR < %t/bwd.mlir
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=8388608,N=2 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=DEFAULT
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=2 stream-loads=false})' | FileCheck %s --check-prefix=CACHED
// RUN: morf-opt %S/../../../examples/row_col_stats.mlir --pipeline=gpu --size-hints M=8388608,N=2 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REDUCE
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=2 packed-rows=1 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE
// RUN: morf-opt %S/../../../examples/row_col_stats.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=2 packed-rows=4 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=AHEAD
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 packed-rows=4 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=WIDE
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=8},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=8 packed-rows=4 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=FULL
// The simulator against the interpreter: bf16 (R = 4), f32 (R = 2), N = 1 (R = 8), N = 4
// (R = 2), splits set at run time (unaligned starts), fixed splits, interleaved splits, a row
// kernel without partials, the read-only family, and a run-time N the kernel was not
// compiled for (the guard's looped form).
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=7 packed-rows=4})' M=30001,N=2 1e-2 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=7 packed-rows=4})' M=7,N=2 1e-2 %t/b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=5 packed-rows=8})' M=3001,N=2 1e-5 %t/c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=4},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=4 grid=5 packed-rows=4})' M=3001,N=4 1e-2 %t/d
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=1 grid=5 packed-rows=8})' M=3001,N=1 1e-2 %t/e
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=0 splits=37 size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=3 packed-rows=4})' M=3001,N=2 1e-2 %t/f
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/logsoftmax_bwd_colsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=3 packed-rows=4 interleave-splits=true})' M=3001,N=2 1e-2 %t/g
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_fwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=3 packed-rows=4})' M=3001,N=2 1e-2 %t/h
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/row_col_stats.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=3 packed-rows=4})' M=3001,N=2 1e-5 %t/i
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=5 packed-rows=4})' M=3001,N=3 1e-2 %t/j
// A schedule in the IR (`gpu-choose-schedule` writes `packed_rows`), the lowering honours
// it, and a value that cannot apply is a located error.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=8388608,N=2},canonicalize,cse,gpu-choose-schedule{size-hints=M=8388608,N=2 packed-rows=4})' > %t/attr.mlir
// RUN: FileCheck %s --check-prefix=ATTR < %t/attr.mlir
// RUN: morf-opt %t/attr.mlir --lower-loop-to-gpu=report=true 2>&1 >/dev/null | FileCheck %s --check-prefix=FROM-IR
// RUN: sed 's/rows_in_flight_per_warp = 1/rows_in_flight_per_warp = 2/' %t/attr.mlir > %t/bad.mlir
// RUN: not morf-opt %t/bad.mlir --lower-loop-to-gpu 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: sed 's/packed_rows = 4/packed_rows = 3/' %t/attr.mlir > %t/bad3.mlir
// RUN: not morf-opt %t/bad3.mlir --lower-loop-to-gpu 2>&1 | FileCheck %s --check-prefix=BAD3
// RUN: not morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{packed-rows=3})' 2>&1 | FileCheck %s --check-prefix=OPT

// REPORT: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 rows_per_cta=256 {{.*}}fast=yes(N=2 vector=2 chunks=1 packed-rows=4)

// Four rows of x and of dy in one 16-byte load each and their four rstd in one (the full
// group, where `min(i, M - 1)` is the identity on its rows), then the rows one by one, then
// dx of the four rows in one 16-byte store; the group at a split's end loads and stores each
// row alone.
// IR: mgpu.func @rmsnorm_bwd_k0
// IR: mloop.cmp le
// IR: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9a-z]+}}] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
// IR-NOT: mgpu.load %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc} : !mgpu.ptr<f32>
// IR: mgpu.store_vec %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9a-z]+}}[%{{[0-9]+}}] : !mgpu.ptr<bf16>
// IR-NEXT: mgpu.yield
// IR-NEXT: } else {
// IR: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16
// IR: mgpu.load %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc} : !mgpu.ptr<f32>
// IR: mgpu.store_vec %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9a-z]+}}[%{{[0-9]+}}] : !mgpu.ptr<bf16>
// IR: mgpu.return

// By default a kernel that writes its short rows (dx) packs them (the H200: RMSNorm backward
// 59.8 -> 44.7 us at 8388608 x 2), and says so; one that only reduces them does not, and names
// the knob; packed-rows=1 keeps one row a thread.
// DEFAULT: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 {{.*}}fast=yes(N=2 vector=2 chunks=1 packed-rows=4)
// DEFAULT: note: @rmsnorm_bwd_k0: packed rows: a thread's row is 4 bytes a row input, so it loads and stores 4 rows with one 16-byte access (packed-rows=1 keeps one row a thread)
// DEFAULT: note: @rmsnorm_bwd_k0: packed rows read each row once: their loads stream (evict-first; stream-loads=false keeps them cached)
// REDUCE: schedule: @row_col_stats_k0: row_fused {{.*}}fast=yes(N=2 vector=2 chunks=1)
// REDUCE: note: @row_col_stats_k0: a thread's row is 4 bytes a row input; packed-rows=4 (a tuner knob) would load 4 rows with one 16-byte access
// CACHED: mgpu.func @rmsnorm_bwd_k0
// CACHED-NOT: stream}
// CACHED: mgpu.return

// ONE: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 {{.*}}fast=yes(N=2 vector=2 chunks=1)
// ONE-NOT: packed

// AHEAD: schedule: @row_col_stats_k0: row_fused {{.*}}fast=yes(N=2 vector=2 chunks=1 packed-rows=4)
// AHEAD-NOT: rows_in_flight=2

// WIDE: note: @rmsnorm_bwd_k0: packed-rows not taken: a row has 32 threads; packed rows need a thread per row

// FULL: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 {{.*}}fast=yes(N=8 vector=8 chunks=1 packed-rows=4 warp-transpose)
// FULL: note: @rmsnorm_bwd_k0: packed rows read each row once

// ATTR: fast = {chunks = 1, cols = 2, packed_rows = 4, vector = 2}

// FROM-IR: schedule: @rmsnorm_bwd_k0: {{.*}}packed-rows=4) (from the nest's morf.schedule attribute)

// BAD: error: 'mloop.parallel' op packed_rows = 4 needs a thread per row whose row is one vector, held, with nothing loaded ahead, and 4 rows of at most 128 bytes a row input (16 here)

// BAD3: error: 'mloop.parallel' op 'morf.schedule' entry 'fast' has a 'packed_rows' that is not 1, 2, 4 or 8 on a thread per row that holds its row

// OPT: option 'packed-rows' must be 2, 4 or 8 (0 or 1: one row a thread), got 3
