// Odd short rows: a row of N = 3, 6 or 12 bf16 (6, 12 or 24 bytes) is not a divisor of 16
// bytes, so a group of lanes would load it in 2-, 4- or 8-byte vectors with a lane of four
// idle. Such a row takes a thread (`vector = N`, not a power of two), and packed rows make R
// of them one access of each row input, split into the widest aligned pieces: by default
// half the fewest rows whose bytes are a multiple of 16, at least two (4 rows of N = 3: 24
// bytes, three loads of 4 bf16; 2 of N = 12: 48 bytes, three of 8); asked, as many as asked (8
// rows of N = 3: three loads of 8 bf16). A row at either end of a split, alone, loads in the
// widest pieces its alignment allows (scalars at N = 3). Per-row scalar outputs (LayerNorm
// forward's mean and rstd) are held and stored as one vector a group too. Where the default
// group would be over 48 bytes (N = 7: 4 rows, 56 bytes), a thread takes the row only with
// its warp loading the groups as one span (warp-transpose.mlir; N = 10's five pieces too).

// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=3 report=true})' 2>&1 >%t/bwd.mlir | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=IR < %t/bwd.mlir
// RUN: morf-opt %S/../../../examples/layernorm_fwd.mlir --pipeline=gpu --size-hints M=8388608,N=3 | FileCheck %s --check-prefix=SCALARS
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=2097152,N=12 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=TWELVE
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=2097152,N=10 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=TEN
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=4194304,N=7 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=SEVEN
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd_f32.mlir --pipeline=gpu --size-hints M=4194304,N=3 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=F32
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=3 packed-rows=8})' | FileCheck %s --check-prefix=EIGHT

// The simulator against the interpreter (it checks every vector access's alignment), at odd
// M, with a few CTAs so that splits end mid-group.
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=5})' M=3001,N=3 1e-2 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=5},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=5 grid=3})' M=1003,N=5 1e-2 %t/b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=6},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=6 grid=5})' M=2001,N=6 1e-2 %t/c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=12},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=12 grid=3})' M=1001,N=12 1e-2 %t/d
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=5})' M=2003,N=3 1e-5 %t/e
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_fwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=3})' M=1001,N=3 1e-2 %t/f
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/row_col_stats.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=3})' M=1001,N=3 1e-5 %t/g
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=5})' M=7,N=3 1e-2 %t/h

// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=10},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=10 grid=3})' M=1003,N=10 1e-2 %t/i
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=5},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=5 grid=3})' M=1001,N=5 1e-5 %t/j
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=5 packed-rows=8})' M=3001,N=3 1e-2 %t/k

// A schedule in the IR carries the odd vector and the packing, and is lowered from it.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=8388608,N=3},canonicalize,cse,gpu-choose-schedule{size-hints=M=8388608,N=3})' > %t/attr.mlir
// RUN: FileCheck %s --check-prefix=ATTR < %t/attr.mlir
// RUN: morf-opt %t/attr.mlir --lower-loop-to-gpu=report=true 2>&1 >/dev/null | FileCheck %s --check-prefix=FROM-IR
// Two rows (12 bytes) are taken in 4-byte pieces; a `fast` entry that does not cover the row,
// or an odd vector that is not a thread's whole row, is an error.
// RUN: sed 's/packed_rows = 4/packed_rows = 2/' %t/attr.mlir | morf-opt --lower-loop-to-gpu | FileCheck %s --check-prefix=TWO
// RUN: sed 's/packed_rows = 4, vector = 3/vector = 1/' %t/attr.mlir > %t/bad.mlir
// RUN: not morf-opt %t/bad.mlir --lower-loop-to-gpu 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: sed 's/cols = 3, packed_rows = 4, vector = 3/cols = 6, vector = 3/' %t/attr.mlir > %t/bad2.mlir
// RUN: not morf-opt %t/bad2.mlir --lower-loop-to-gpu 2>&1 | FileCheck %s --check-prefix=BAD2

// REPORT: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 rows_per_cta=256 {{.*}}fast=yes(N=3 vector=3 chunks=1 packed-rows=4)
// REPORT: note: @rmsnorm_bwd_k0: packed rows: a thread's row is 6 bytes a row input, so it loads and stores 4 rows with 3 accesses (24 bytes)

// A full group: x and dy in three 8-byte loads each, the 4 rstd in one, dx in three stores.
// IR: mgpu.func @rmsnorm_bwd_k0
// IR-COUNT-6: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16
// IR: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9a-z]+}}] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
// IR-COUNT-3: mgpu.store_vec %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9a-z]+}}[%{{[0-9]+}}] : !mgpu.ptr<bf16>
// IR-NEXT: mgpu.yield
// IR-NEXT: } else {
// A row alone: N = 3 at a multiple of 3 elements is three scalar loads and stores.
// IR-NOT: mgpu.load_vec
// IR: mgpu.load %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16>
// IR-NEXT: mloop.add
// IR-NEXT: mgpu.load %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16>
// IR: mgpu.return

// SCALARS: mgpu.func @layernorm_fwd_k0
// SCALARS: mgpu.store_vec %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9a-z]+}}[%{{[0-9a-z]+}}] : !mgpu.ptr<f32>
// SCALARS-NEXT: mgpu.store_vec %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9a-z]+}}[%{{[0-9a-z]+}}] : !mgpu.ptr<f32>

// TWELVE: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 {{.*}}fast=yes(N=12 vector=12 chunks=1 packed-rows=2)
// TEN: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 {{.*}}fast=yes(N=10 vector=10 chunks=1 packed-rows=2 warp-transpose)
// SEVEN: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 {{.*}}fast=yes(N=7 vector=7 chunks=1 packed-rows=4 warp-transpose)
// SEVEN: note: @rmsnorm_bwd_k0: warp-transposed packed rows: a thread's group is 7 pieces (56 bytes), so its warp loads and stores the 32 groups as one span through shared memory
// F32: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 {{.*}}fast=yes(N=3 vector=3 chunks=1 packed-rows=2)

// EIGHT: mgpu.func @rmsnorm_bwd_k0
// EIGHT-COUNT-6: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// EIGHT-COUNT-2: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9a-z]+}}] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
// EIGHT-COUNT-3: mgpu.store_vec %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9a-z]+}}[%{{[0-9]+}}] : !mgpu.ptr<bf16>

// ATTR: fast = {chunks = 1, cols = 3, packed_rows = 4, vector = 3}
// FROM-IR: schedule: @rmsnorm_bwd_k0: {{.*}}vector=3 chunks=1 packed-rows=4) (from the nest's morf.schedule attribute)
// TWO: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16
// TWO-NEXT: mloop.add
// TWO-NEXT: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16
// TWO-NEXT: mloop.add
// TWO-NEXT: mgpu.load_vec %{{[0-9a-z]+}}[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16
// BAD: error: 'mloop.parallel' op 'morf.schedule' entry 'fast': chunks x threads of a row x vector = 1 x 1 x 1 = 1 columns do not cover cols = 3 with every chunk inside the row
// BAD2: error: 'mloop.parallel' op 'morf.schedule' entry 'fast' has a 'vector' of 3 that is not 1, 2, 4 or 8, nor a thread's whole row
