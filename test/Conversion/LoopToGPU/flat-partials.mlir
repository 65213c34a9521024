// Flat partials (docs/conversion-loop-to-gpu.md, "Flat partials"): a pointwise nest with
// partials (`{kind = "pointwise", split = S}`: a bias gradient's dx beside db = sum_i dy)
// whose accesses are all at the point's flat position, over rows where the row form would
// leave lanes idle (not whole 16-byte vectors or under 1024 bytes, but not the short unaligned
// rows of at most 64 bytes the row form gives a thread each), runs as CTAs of N x c threads
// over consecutive vectors of 8
// bf16 of their rows: a thread's vectors are always the same slot of a run of N vectors, so
// each of its 8 register partials is always the same column; the column owners add the
// threads' partials from shared memory in a fixed order, then the points past the last full
// vector, into the workspace row of the CTA's first split. Where N is over the CTA at run
// time, the scalar form runs instead (a thread per (split, column)).

// RUN: rm -rf %t && mkdir -p %t
// CTAs of N x c threads (flat-warps=false; by default CTAs of whole warps, below).
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 flat-warps=false report=true})' 2>&1 >%t/f100.mlir | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=IR < %t/f100.mlir
// Short unaligned rows (N = 17: 34 bytes) keep the row form by default (2 packed rows a
// thread, warp-transposed: 1.5x faster than flat partials on an H100).
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=2097152,N=17 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=SHORT
// N = 32: CTAs of 256 threads (whole warps), so the final reduction joins the flat partials'
// grid behind a grid barrier (final=grid), as after a row kernel; N = 100 with
// flat-warps=false (200 threads) keeps it a launch of its own.
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=1048576,N=32 --schedule-report 2>&1 >%t/f32.mlir | FileCheck %s --check-prefix=MERGED
// RUN: FileCheck %s --check-prefix=MERGED-IR < %t/f32.mlir
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=1048576,N=32},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=1048576,N=32 grid=3})' M=1001,N=32 1e-2 %t/m
// Rows of 768 bytes take the flat form; rows of 1024 bytes, a multiple of 16, the row form
// (flat-partials=true takes the flat form there).
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=131072,N=384 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=N384
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=65536,N=512 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=ROWS
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=65536,N=512},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=512 flat-partials=true report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=FORCED
// vectors-in-flight=1 keeps one loop of one vector; 4 carries 4 x 8 partials; 3 is an error.
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 vectors-in-flight=1 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 vectors-in-flight=4})' | FileCheck %s --check-prefix=FOUR
// RUN: not morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{vectors-in-flight=3})' 2>&1 | FileCheck %s --check-prefix=OPT3

// A bad value of the option is an error that names it, exit 1.
// RUN: not morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{flat-partials=maybe})' 2>&1 | FileCheck %s --check-prefix=OPT

// The simulator against the interpreter: odd M (a tail past the last full vector), few CTAs
// (several splits a CTA), N = 7, 17, 3 and 1 (flat-partials=true), N = 100, N = 17 at run
// time under a hint of 100, N = 300 at run time over the CTA of a hint of 4 (the scalar
// form), 3-D rows (two dims flattened).
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7 grid=3 flat-partials=true})' M=3001,N=7 1e-2 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=2097152,N=17},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=2097152,N=17 grid=2 flat-partials=true})' M=1003,N=17 1e-2 %t/b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/tanh_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=2 flat-partials=true})' M=2999,N=3 1e-2 %t/c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=1 grid=2 flat-partials=true})' M=1001,N=1 1e-2 %t/d
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 grid=3})' M=301,N=100 1e-2 %t/e0
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 grid=5})' M=7,N=17 1e-2 %t/e
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=4},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=4 grid=5 flat-partials=true})' M=3,N=300 1e-2 %t/f
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 grid=3 vectors-in-flight=4})' M=307,N=100 1e-2 %t/u4
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=1048576,N=32},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=1048576,N=32 grid=7 vectors-in-flight=1})' M=1001,N=32 1e-2 %t/u1
// By default (and with flat-warps=true) CTAs of whole warps (800 threads at N = 100, 224 at
// N = 7), whose final joins the grid (final=grid, a grid barrier; final=tail, the last CTAs),
// on the simulator.
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=327680,N=100 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=WARPS
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 flat-warps=true report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=WARPS
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 grid=3 flat-warps=true})' M=307,N=100 1e-2 %t/w1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 grid=5 flat-warps=true final=tail})' M=1001,N=100 1e-2 %t/w2
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/scale_colmax_colsum_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7 grid=3 flat-partials=true flat-warps=true})' M=1001,N=7 1e-5 %t/w3
// RUN: not morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{flat-warps=some})' 2>&1 | FileCheck %s --check-prefix=WARPS-OPT
// f32 (vectors of 4) with two partials of different kinds (a column max beside a column sum;
// the max's identity is -inf), at the f32 tolerance: 2 and 4 vectors in flight, 5 rows over
// a grid of 3 (CTAs without rows), N = 7.
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/scale_colmax_colsum_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 grid=3 vectors-in-flight=2})' M=307,N=100 1e-5 %t/f32a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/scale_colmax_colsum_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=327680,N=100},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=327680,N=100 grid=3 vectors-in-flight=4})' M=1301,N=100 1e-5 %t/f32b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/scale_colmax_colsum_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=1048576,N=32},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=1048576,N=32 grid=3})' M=5,N=32 1e-5 %t/f32c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/scale_colmax_colsum_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7 grid=3 flat-partials=true})' M=1001,N=7 1e-5 %t/f32d
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/tanh_bwd_bias_3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=64,T=65536,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=B=64,T=65536,N=7 grid=3 flat-partials=true})' B=3,T=1001,N=7 1e-2 %t/g

// REPORT: schedule: @gelu_bwd_bias_k0: partial_pointwise threads=200 {{.*}} vector=8 partials=none
// REPORT-NEXT: note: @gelu_bwd_bias_k0: flat partials: a CTA of 200 threads (2 x N = 100) takes consecutive vectors of 8 points of its rows, 2 of each input at once, each thread's columns fixed; partials combined in shared memory
// The fusion model priced the default's CTA of 800 threads (one a SM: a split of 2048 rows);
// CTAs of 200 threads, five a SM, would fill 660: the report says the grid leaves SMs idle.
// REPORT-NEXT: note: @gelu_bwd_bias_k0: flat partials: 160 splits of 2048 rows take 160 CTAs, under the 660 that fit at once: SMs idle (a smaller split, fuse-mixed-reductions{splits=...}, fills them)
// REPORT: schedule: @gelu_bwd_bias_k1: final_reduction

// The kernel: 2 x 100 threads; the shared partials (8 a thread); the run-time check that N
// fits the CTA; the vector loop over the CTA's points two vectors at a time (vectors in
// flight), the four 16-byte loads of x and dy before the two stores of dx, 2 x 8 f32 partials
// and the next vector carried; then the last vector alone, 8 partials; the partials to shared
// memory, a barrier, the column owners' fixed-order sums, the tail's scalar points, the
// workspace row, stored (not added: the kernel writes every element of the workspace once, so
// the host's identity fill is gone), then the identity into the rows no CTA's rows went to
// (the splits past the grid, from fresh reads of the grid and the block); the scalar form for N
// over the CTA stores its elements too.
// IR: %workspace = mloop.alloc
// IR-NOT: mloop.fill
// IR: mgpu.launch @gelu_bwd_bias_k0
// IR-LABEL: mgpu.func @gelu_bwd_bias_k0(
// IR-SAME: max_threads = 200
// IR: mgpu.shared_alloc {size = 1600} : !mgpu.ptr<f32, 3>
// IR: mgpu.if
// IR: mloop.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, index) {
// IR-COUNT-4: mgpu.load_vec %{{.*}} {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR-NOT: mgpu.load_vec
// IR-COUNT-2: mgpu.store_vec {{.*}} : !mgpu.ptr<bf16>
// IR: mloop.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// IR: mgpu.load_vec %{{.*}} {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: mgpu.load_vec %{{.*}} {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: mgpu.store_vec {{.*}} : !mgpu.ptr<bf16>
// IR: mgpu.store %{{.*}} : !mgpu.ptr<f32, 3>
// IR: mgpu.barrier
// IR: mgpu.load %{{.*}} : !mgpu.ptr<f32, 3>
// IR: mgpu.store %{{.*}} : !mgpu.ptr<bf16>
// IR-NOT: mgpu.load %{{.*}} : !mgpu.ptr<f32>{{$}}
// IR: mgpu.store %{{.*}} : !mgpu.ptr<f32>
// IR: %[[G:.*]] = mgpu.grid_dim : index
// IR-NEXT: %[[B:.*]] = mgpu.block_id : index
// IR-NEXT: %[[NEXT:.*]] = mloop.add %[[B]], %[[G]] : index
// IR-NEXT: mloop.for %{{.*}} = %[[NEXT]] to %{{.*}} step %[[G]] {
// IR-NEXT: mloop.mul
// IR-NEXT: mloop.add
// IR-NEXT: mgpu.store %{{.*}} : !mgpu.ptr<f32>
// A CTA without rows: the identity from its own row.
// IR: } else {
// IR: %[[G2:.*]] = mgpu.grid_dim : index
// IR-NEXT: %[[B2:.*]] = mgpu.block_id : index
// IR-NEXT: mloop.for %{{.*}} = %[[B2]] to %{{.*}} step %[[G2]] {
// IR: mgpu.store %{{.*}} : !mgpu.ptr<f32>
// IR: } else {
// IR-NOT: mgpu.load %{{.*}} : !mgpu.ptr<f32>{{$}}
// IR: mgpu.store %{{.*}} : !mgpu.ptr<f32>
// IR-LABEL: mgpu.func @gelu_bwd_bias_k1(

// SHORT: schedule: @gelu_bwd_bias_k0: row_fused threads=256 threads_per_row=1 {{.*}}packed-rows=2 warp-transpose)
// N384: schedule: @gelu_bwd_bias_k0: partial_pointwise threads=384 {{.*}} vector=8
// N384-NEXT: note: @gelu_bwd_bias_k0: flat partials: a CTA of 384 threads (1 x N = 384)
// ROWS: schedule: @gelu_bwd_bias_k0: row_fused
// FORCED: schedule: @gelu_bwd_bias_k0: partial_pointwise threads=512 {{.*}} vector=8
// FORCED-NEXT: note: @gelu_bwd_bias_k0: flat partials: a CTA of 512 threads (1 x N = 512)
// ONE: note: @gelu_bwd_bias_k0: flat partials: {{.*}} vectors of 8 points of its rows, 1 of each input at once
// FOUR-LABEL: mgpu.func @gelu_bwd_bias_k0(
// FOUR: mloop.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, index) {
// FOUR-COUNT-8: mgpu.load_vec
// OPT3: option 'vectors-in-flight' must be 1, 2 or 4 (0: heuristic), got 3

// MERGED: schedule: @gelu_bwd_bias_k0: partial_pointwise threads=256 {{.*}} vector=8
// MERGED: schedule: @gelu_bwd_bias_k1: final_reduction threads=256
// MERGED: note: @gelu_bwd_bias_k1 runs in the grid of the launch before it, after a grid barrier (final=grid)
// MERGED-IR: mgpu.launch @gelu_bwd_bias_k0
// MERGED-IR-NOT: mgpu.launch
// MERGED-IR: mgpu.func @gelu_bwd_bias_k0({{.*}}cooperative{{.*}}morf.schedule = "PartialPointwise threads=256 {{.*}}; grid barrier; FinalReduction threads=256
// MERGED-IR: mgpu.grid_barrier
// OPT: pass 'lower-loop-to-gpu': option 'flat-partials' must be 'auto', 'true' or 'false', got 'maybe'

// WARPS: schedule: @gelu_bwd_bias_k0: partial_pointwise threads=800 {{.*}} vector=8
// WARPS-NEXT: note: @gelu_bwd_bias_k0: flat partials: a CTA of 800 threads (8 x N = 100)
// WARPS-NOT: SMs idle
// WARPS: schedule: @gelu_bwd_bias_k1: final_reduction threads=800
// WARPS: note: @gelu_bwd_bias_k1 runs in the grid of the launch before it, after a grid barrier (final=grid)
// WARPS-OPT: option 'flat-warps' must be 'auto', 'true' or 'false', got 'some'
