// Warp-transposed packed rows (`warp-transpose=true`): a thread per short row takes R rows at
// once (packed rows), and the warp's 32 groups, one contiguous span of each row buffer, are
// loaded by the warp together in consecutive pieces (lane l's pieces p at (l + 32 p) x w: each
// warp access one run of 32 pieces), stored to the warp's region of shared memory, and read
// back by the lanes that own them; the group's row outputs go the other way. Without it each
// thread accesses its own group, a group apart from the next lane's. The branch that does this
// needs the warp's 32 groups inside the split (a condition the same on all its lanes, whose
// warp barriers need them all); at a split's ends each lane takes its own group as without
// the option, or its rows one by one.
// It also lets an odd row whose default group is over 48 bytes take a thread (N = 7: 4 rows of
// 14 bytes). The heuristic takes it where a thread's group is at least 4 aligned pieces
// (docs/perf.md, thirty-second session: RMSNorm backward at 4194304 x 7 137.9 -> 79.2 us on an
// H100); `warp-transpose=false` keeps the lanes there, and says what the option would do.

// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4194304,N=7 warp-transpose=true report=true})' 2>&1 >%t/seven.mlir | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=IR < %t/seven.mlir
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=2 packed-rows=8 warp-transpose=true})' | FileCheck %s --check-prefix=TWO
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=2 warp-transpose=true report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE-PIECE
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 warp-transpose=true report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=LONG
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=4194304,N=7 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=DEFAULT
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=8388608,N=3 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=THREE
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4194304,N=7 warp-transpose=false report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF
// RUN: not morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{warp-transpose=maybe})' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --emit=ptx --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4194304,N=7 warp-transpose=true})' | FileCheck %s --check-prefix=PTX

// Odd rows of 34-62 bytes (bf16 N = 17 to 31): their default 4 rows are over the 128 bytes a
// group holds, so they take 2 (68-124 bytes, in 4-byte pieces), warp-transposed; a warp per
// row with 17 of its lanes on 2-byte loads before (RMSNorm backward at 2097152 x 17: 32% of
// the floor on an H100, thirty-fourth session). N = 33 (66 bytes) keeps the lanes.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=2097152,N=17 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=SEVENTEEN
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=2097152,N=31 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=THIRTYONE
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=2097152,N=33 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=THIRTYTHREE
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=2097152,N=17},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=2097152,N=17 grid=3})' M=1003,N=17 1e-2 %t/s17
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=2097152,N=31},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=2097152,N=31 grid=2})' M=999,N=31 1e-2 %t/s31
// SEVENTEEN: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 {{.*}}fast=yes(N=17 vector=17 chunks=1 packed-rows=2 warp-transpose)
// THIRTYONE: schedule: @layernorm_bwd_k0: row_fused threads=256 threads_per_row=1 {{.*}}fast=yes(N=31 vector=31 chunks=1 packed-rows=2 warp-transpose)
// THIRTYTHREE: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=32 {{.*}}fast=yes(N=33 vector=1 chunks=2)

// The simulator against the interpreter at odd M, with few CTAs (several splits a CTA, warps
// at the splits' ends), 8-byte pieces (N = 7, N = 3), 16-byte pieces (8 rows of N = 5), two
// rows of N = 14 and LayerNorm backward's three row buffers.
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7 grid=3 warp-transpose=true})' M=3001,N=7 1e-2 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=2 warp-transpose=true})' M=2999,N=3 1e-2 %t/b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=5},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=5 grid=2 packed-rows=8 warp-transpose=true})' M=2100,N=5 1e-2 %t/c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_fwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=14},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=14 grid=2 warp-transpose=true})' M=1001,N=14 1e-2 %t/d

// A schedule in the IR carries it (`warp_transpose = 1` in `fast`) and is lowered from it;
// without packed rows it is an error.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4194304,N=7},canonicalize,cse,gpu-choose-schedule{size-hints=M=4194304,N=7 warp-transpose=true})' > %t/attr.mlir
// RUN: FileCheck %s --check-prefix=ATTR < %t/attr.mlir
// RUN: morf-opt %t/attr.mlir --lower-loop-to-gpu | FileCheck %s --check-prefix=FROM-IR
// RUN: sed 's/packed_rows = 4, //' %t/attr.mlir > %t/bad.mlir
// RUN: not morf-opt %t/bad.mlir --lower-loop-to-gpu 2>&1 | FileCheck %s --check-prefix=BAD

// REPORT: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 rows_per_cta=256 {{.*}}fast=yes(N=7 vector=7 chunks=1 packed-rows=4 warp-transpose)
// REPORT: note: @rmsnorm_bwd_k0: packed rows: a thread's row is 14 bytes a row input, so it loads and stores 4 rows with 7 accesses (56 bytes)

// The shared memory as bf16, the warp's region at warp_id x 896 elements (32 groups of 28)
// after the 7168 bytes of shared partials.
// IR: mgpu.func @rmsnorm_bwd_k0
// IR: %[[LANE:[0-9]+]] = mgpu.lane_id : index
// IR: %[[SPAN:[0-9]+]] = mloop.constant 128 : index
// IR-NEXT: %[[SMEM:[0-9]+]] = mgpu.dynamic_shared : !mgpu.ptr<bf16, 3>
// IR-NEXT: %[[WARP:[0-9]+]] = mgpu.warp_id : index
// IR-NEXT: %[[PER:[0-9]+]] = mloop.constant 896 : index
// IR-NEXT: %[[AT:[0-9]+]] = mloop.constant 3584 : index
// The warp's first row: the thread's group less lane x 4 rows; the branch needs its 128 rows.
// IR: %[[LR:[0-9]+]] = mloop.mul %[[LANE]], %{{[0-9]+}} : index
// IR-NEXT: %[[FIRST:[0-9]+]] = mloop.sub %arg{{[0-9]+}}, %[[LR]] : index
// IR-NEXT: %[[END:[0-9]+]] = mloop.add %[[FIRST]], %[[SPAN]] : index
// IR: mgpu.if
// IR-NEXT: %[[W:[0-9]+]] = mloop.mul %[[WARP]], %[[PER]] : index
// IR-NEXT: mloop.add %[[W]], %[[AT]] : index
// A full warp: x then dy in seven 8-byte pieces a lane (4 bf16 at lane x 4 + 128 p), all
// issued before any is handed over.
// IR-COUNT-7: mgpu.load_vec %arg10[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16
// IR-COUNT-7: mgpu.load_vec %arg11[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16
// x's pieces to shared memory, a warp barrier, the lane's 28 elements back, a warp barrier.
// IR-COUNT-7: mgpu.store_vec %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[SMEM]][%{{[0-9]+}}] : !mgpu.ptr<bf16, 3>
// IR-NEXT: mgpu.warp_barrier
// IR-COUNT-7: mgpu.load_vec %[[SMEM]][%{{[0-9]+}}] : !mgpu.ptr<bf16, 3> -> bf16, bf16, bf16, bf16
// IR-NEXT: mgpu.warp_barrier
// IR-COUNT-7: mgpu.store_vec %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[SMEM]][%{{[0-9]+}}] : !mgpu.ptr<bf16, 3>
// IR-NEXT: mgpu.warp_barrier
// IR-COUNT-7: mgpu.load_vec %[[SMEM]][%{{[0-9]+}}] : !mgpu.ptr<bf16, 3> -> bf16, bf16, bf16, bf16
// IR-NEXT: mgpu.warp_barrier
// The 4 rstd of the group as one vector, the thread's own.
// IR-NEXT: mgpu.load_vec %arg12[%{{[0-9a-z]+}}] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
// dx: the lane's group into shared memory, a warp barrier, the span out in pieces read back
// from shared memory, a warp barrier.
// IR-COUNT-7: mgpu.store_vec %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[SMEM]][%{{[0-9]+}}] : !mgpu.ptr<bf16, 3>
// IR-NEXT: mgpu.warp_barrier
// IR: %[[P:[0-9]+]], %[[Q:[0-9]+]], %[[R:[0-9]+]], %[[S:[0-9]+]] = mgpu.load_vec %[[SMEM]]
// IR-NEXT: mgpu.store_vec %[[P]], %[[Q]], %[[R]], %[[S]], %arg13[%{{[0-9]+}}] : !mgpu.ptr<bf16>
// IR: mgpu.warp_barrier
// IR-NEXT: mgpu.yield
// IR-NEXT: } else {
// A warp at a split's end: each lane its own group where that is inside the split (its own
// seven 8-byte pieces of x), else row by row; no warp barrier.
// IR-NEXT: mgpu.if
// IR-COUNT-7: mgpu.load_vec %arg10[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16
// IR-NOT: mgpu.warp_barrier
// IR: } else {
// IR-NOT: mgpu.warp_barrier
// IR: mgpu.load %arg10[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16>
// IR-NOT: mgpu.warp_barrier
// IR: mgpu.return

// Eight rows of N = 2 (32 bytes): 16-byte pieces.
// TWO: mgpu.func @rmsnorm_bwd_k0
// TWO-COUNT-2: mgpu.load_vec %arg10[%{{[0-9]+}}] {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// TWO: mgpu.warp_barrier

// Four rows of N = 2 are one 16-byte access a thread: the warp's run already.
// ONE-PIECE: fast=yes(N=2 vector=2 chunks=1 packed-rows=4)
// ONE-PIECE: warp-transpose not taken: no packed rows of more than 16 bytes

// DEFAULT: fast=yes(N=7 vector=7 chunks=1 packed-rows=4 warp-transpose)
// DEFAULT: note: @rmsnorm_bwd_k0: warp-transposed packed rows: a thread's group is 7 pieces (56 bytes), so its warp loads and stores the 32 groups as one span through shared memory (warp-transpose=false keeps each thread's own pieces)
// Four rows of N = 3 are three pieces: each thread's own.
// THREE: fast=yes(N=3 vector=3 chunks=1 packed-rows=4)
// THREE-NOT: warp-transpose
// OFF: row_fused threads=256 threads_per_row=8 {{.*}}fast=yes(N=7 vector=1 chunks=1)
// OFF: note: @rmsnorm_bwd_k0: 8 lanes a row of 14 bytes, 2-byte accesses a lane: a thread per row would pack 56-byte groups, over the 48 bytes {{.*}}; warp-transpose=true (a tuner knob) does

// LONG: note: @rmsnorm_bwd_k0: warp-transpose not taken: no packed rows

// OPT: pass 'lower-loop-to-gpu': option 'warp-transpose' must be 'auto', 'true' or 'false', got 'maybe'

// PTX: .extern .shared .align 16 .b8 dyn_smem[];
// PTX: ld.global.cs.nc.v4.b16
// PTX: st.shared.v4.b16
// PTX: bar.warp.sync -1;

// ATTR: fast = {chunks = 1, cols = 7, packed_rows = 4, vector = 7, warp_transpose = 1}
// FROM-IR: mgpu.func @rmsnorm_bwd_k0
// FROM-IR: mgpu.warp_barrier
// BAD: bad.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'mloop.parallel' op 'morf.schedule' entry 'fast' has 'warp_transpose' without 'packed_rows' of 2 or more and whole warps
