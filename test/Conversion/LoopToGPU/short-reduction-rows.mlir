// A reduction-only kernel of one row input (it stores no row: its loads are all the bytes it
// keeps in flight) whose short register-resident row would give each lane of a warp under 64
// bytes (SHORT_ROW_LANE_BYTES) takes fewer lanes a row, at most four vectors a lane: 8 lanes a
// 256-column bf16 row (64 bytes each), 16 a 384-column one (48). Longer rows, two row inputs or
// a written row keep their lanes; the option decides when given.
// RUN: morf-opt %S/../../../examples/row_col_stats.mlir --pipeline=gpu --size-hints M=1000000,N=256 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=N256
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pipeline=gpu --size-hints M=576000,N=384 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=N384
// RUN: morf-opt %S/../../../examples/reduce3d.mlir --pipeline=gpu --size-hints B=1024,M=1024,N=256 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=R3D
// A lane per row already (N = 2: 4 bytes a lane) takes its next row in flight too.
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pipeline=gpu --size-hints M=8388608,N=2 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=LANE
// A reduction-only kernel whose input another kernel also loads (the unfused pipeline's row
// sums of LayerNorm backward read dy, as its dx kernel does) is not streamed, but its rows take
// the same lanes (NestShape::reduces_only, not streams_inputs).
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=131072,N=256 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=SHARED
// RUN: morf-opt %S/../../../examples/row_col_stats.mlir --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=LONG
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=1000000,N=256 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=WRITES
// RUN: morf-opt %S/../../../examples/row_col_stats.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000000,N=256},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000000,N=256 threads-per-row=32 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ASKED
// The kernels agree with the interpreter on the simulator (several rows a warp, splits of 16
// rows so that a warp walks several rows).
// RUN: mkdir -p %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/row_col_stats.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000000,N=256 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000000,N=256})' M=45,N=256 1e-5 %t/s1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/colmax_rowsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=576000,N=384})' M=37,N=384 1e-5 %t/s2
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/colmax_rowsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=8388608,N=2 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=2})' M=45,N=2 1e-5 %t/s4
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/reduce3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=1024,M=1024,N=256 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=B=1024,M=1024,N=256})' B=3,M=5,N=256 1e-5 %t/s3

// N256: schedule: @row_col_stats_k0: row_fused threads=256 threads_per_row=8 rows_per_cta=32 {{.*}} stream_loads fast=yes(N=256 vector=8 chunks=4)
// N256: note: @row_col_stats_k0: 8 lanes a row, not 32: a reduction-only row of 256 columns and one input loads 64 bytes a lane (a lane of 32 loads 16)

// N384: schedule: @colmax_rowsum_k0: row_fused threads=256 threads_per_row=16 rows_per_cta=16 {{.*}} stream_loads fast=yes(N=384
// N384: note: @colmax_rowsum_k0: 16 lanes a row, not 32: a reduction-only row of 384 columns and one input loads 48 bytes a lane (a lane of 32 loads 32)

// R3D: schedule: @reduce3d_k0: row_fused threads=256 threads_per_row=8 {{.*}} stream_loads

// LANE: schedule: @colmax_rowsum_k0: row_fused threads=256 threads_per_row=1 {{.*}} rows_in_flight=2
// LANE: note: @colmax_rowsum_k0: two rows in flight: a lane per row of a reduction-only kernel loads 4 bytes of a row

// SHARED: schedule: @layernorm_bwd_k1: row_fused threads=256 threads_per_row=8 rows_per_cta=32 grid<=1056 vector=4 partials=none fast=yes(N=256 vector=8 chunks=4)
// SHARED: note: @layernorm_bwd_k1: 8 lanes a row, not 32: a reduction-only row of 256 columns and one input loads 64 bytes a lane

// LONG: schedule: @row_col_stats_k0: row_fused threads=256 threads_per_row=32
// LONG-NOT: lanes a row, not

// WRITES: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=32
// WRITES-NOT: lanes a row, not

// ASKED: schedule: @row_col_stats_k0: row_fused threads=256 threads_per_row=32
// ASKED-NOT: lanes a row, not
