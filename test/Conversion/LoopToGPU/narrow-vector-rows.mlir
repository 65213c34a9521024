// A short register-resident row of 8-byte vectors (N a multiple of half the 16-byte vector but
// not of all of it: N = 100 or 36 in bf16, 50 in f32) takes the fewest lanes a row, a power of
// two, whose share of each row input stays at or under 32 bytes (NARROW_ROW_LANE_BYTES;
// docs/conversion-loop-to-gpu.md, "Rows of 8-byte vectors"): 8 lanes of four vectors at N =
// 100 (25 vectors), 4 of three at N = 36 (9). N = 300 (75 vectors: three a lane of 32, five of
// 16) keeps its warp, rows of 16-byte vectors and of 4-byte vectors keep their lanes, and the
// option decides when given.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=262144,N=100 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=N100
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=728177,N=36 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=N36
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd_f32.mlir --pipeline=gpu --size-hints M=65536,N=50 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=F32
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=87381,N=300 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=N300
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=50 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=FOURBYTE
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=262144,N=100},canonicalize,cse,lower-loop-to-gpu{size-hints=M=262144,N=100 threads-per-row=32 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ASKED
// The kernels agree with the interpreter on the simulator (several rows a warp, splits of 16
// rows so that a warp walks several rows; a partial last row group).
// RUN: mkdir -p %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=262144,N=100 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=262144,N=100})' M=45,N=100 1e-2 %t/s1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=728177,N=36 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=728177,N=36})' M=37,N=36 1e-2 %t/s2
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=50 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=50})' M=29,N=50 1e-5 %t/s3

// N100: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=8 rows_per_cta=32 {{.*}} fast=yes(N=100 vector=4 chunks=4)
// N100: note: @rmsnorm_bwd_k0: 8 lanes a row, not 32: a row of 100 columns in 8-byte vectors loads 32 bytes of each row input a lane (a lane of 32 loads 8)

// N36: schedule: @layernorm_bwd_k0: row_fused threads=256 threads_per_row=4 rows_per_cta=64 {{.*}} fast=yes(N=36 vector=4 chunks=3)
// N36: note: @layernorm_bwd_k0: 4 lanes a row, not 16: a row of 36 columns in 8-byte vectors loads 24 bytes of each row input a lane (a lane of 16 loads 8)

// F32: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=8 {{.*}} fast=yes(N=50 vector=2 chunks=4)
// F32: note: @rmsnorm_bwd_k0: 8 lanes a row, not 32: a row of 50 columns in 8-byte vectors

// N300: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=32 {{.*}} fast=yes(N=300 vector=4 chunks=3)
// N300-NOT: lanes a row, not

// FOURBYTE: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=32 {{.*}} fast=yes(N=50 vector=2 chunks=1)
// FOURBYTE-NOT: lanes a row, not

// ASKED: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=32
// ASKED-NOT: lanes a row, not
