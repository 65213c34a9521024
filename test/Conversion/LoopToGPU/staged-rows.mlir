// Register-resident row kernels can keep their next rows in flight through shared memory
// (`staged-rows`): each row group (warp or CTA) fills a ring of row slots in the launch's
// dynamic shared memory (after the shared partials, if any) with asynchronous copies, one
// copy group per row, waits for the oldest group before a row, and refills that slot with the
// row `staged-rows` groups ahead. The heuristic stages rows in kernels with a CTA per row, and
// in a warp per row whose heavy row would give CTAs up for a second row in registers
// (staged-heavy-rows.mlir); a warp per row stages otherwise when asked.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=16384,N=8192 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=AUTO
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=WARP
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=64,N=256 staged-rows=3})' | FileCheck %s --check-prefix=IR
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=64,N=256 staged-rows=1 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=NONE
// The schedule survives the attribute: choosing it first lowers to the same kernels.
// RUN: mkdir -p %t
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192},canonicalize,cse,lower-loop-to-gpu{size-hints=M=16384,N=8192})' > %t/a.mlir
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192},canonicalize,cse,gpu-choose-schedule{size-hints=M=16384,N=8192},lower-loop-to-gpu)' > %t/b.mlir
// RUN: diff %t/a.mlir %t/b.mlir
// RUN: not morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{staged-rows=9})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=8192,N=16384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8192,N=16384 reload=false report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=NOROOM
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384 partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384 threads-per-row=16 shared-accs=true staged-rows=4 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=CTAS
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384 partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384 threads-per-row=16 shared-accs=true staged-rows=2 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=CTAS2
// A forced ring fits what a CTA may have besides its partials and its static memory (227
// KiB on sm_90): RMSNorm f32 at N = 1024 asked three rows of 64 KiB beside 32 KiB of shared
// partials and 4 KiB of a merged final's tiles, and the launch failed on the H100 (forty-eighth
// session); now two are taken, and the simulator, which refuses such a launch too, runs it.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd_f32.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=1024 staged-rows=4 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=CTAROOM
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd_f32.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=1024 staged-rows=4 device=smem-cta=101376 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=CTAROOM99
// RUN: mkdir -p %t/room %t/room-cta %t/room-accs
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=1024 staged-rows=4})' M=9,N=1024 1e-5 %t/room
// The same for a CTA per row of 1024 threads (a merged final's 16 KiB of tiles) and for one
// with shared accumulators, the largest rings asked (both asked more than a CTA may have before).
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=4096},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=4096 threads=1024 staged-rows=8})' M=3,N=4096 1e-5 %t/room-cta
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=8192},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=8192 shared-accs=true staged-rows=8})' M=3,N=8192 1e-5 %t/room-accs
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024 partials=132},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=1024 staged-rows=2 shared-accs=true})' | FileCheck %s --check-prefix=BOUND

// A CTA per row (N = 8192): four 32 KB rows of x and dy per SM in flight.
// AUTO: schedule: @rmsnorm_bwd_k0: row_fused {{.*}} partials=global staged_rows=4 fast=yes
// A warp per row with shared partials: no staging.
// WARP: schedule: @rmsnorm_bwd_k0: row_fused {{.*}} partials=shared
// WARP-NOT: staged_rows

// Three rows ahead per warp: three copy groups before the row loop, a wait for all but the
// two newest in it, the refill of the slot just read, and a wait for all after it.
// IR: mgpu.func @rmsnorm_fwd_k0
// IR: mgpu.dynamic_shared : !mgpu.ptr<bf16, 3>
// IR-COUNT-3: mgpu.copy_async_commit
// IR: mloop.for
// IR-NEXT: mgpu.copy_async_wait {pending = 2}
// IR: mgpu.copy_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 8} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
// IR-NEXT: mgpu.copy_async_commit
// IR: mgpu.copy_async_wait {pending = 0}

// staged-rows=1: none.
// NONE: schedule: @rmsnorm_fwd_k0: row_fused
// NONE-NOT: staged_rows

// BAD: option 'staged-rows' must be at most 8 (0: heuristic, 1: none), got 9

// N = 16384: a CTA of 1024 threads may hold 64 registers each, under the estimate of one
// row in registers (ptxas spilled 284 bytes there). Without the reload form (reload.mlir, the
// default there now) the row stays in a loop, and the report says so.
// NOROOM: schedule: @layernorm_bwd_k0: row_fused threads=1024 {{.*}} partials=global fast=no
// NOROOM-NEXT: note: @layernorm_bwd_k0: row kept in a loop, not in registers: ~110 registers estimated for 16 columns a thread, over the 64 a thread of 1024 may hold

// A forced ring that costs CTAs per SM is said (on the H200 this schedule ran 430 us with four
// rows staged, one CTA per SM, and 350 with two, two CTAs per SM).
// CTAS: schedule: @layernorm_bwd_k0: row_fused threads=256 {{.*}} grid<=132 {{.*}} staged_rows=4
// CTAS: note: @layernorm_bwd_k0: staged-rows=4: the ring's 98304 bytes of shared memory leave room for 1 CTA(s) of 256 threads per SM, against 4 without it
// CTAS2: schedule: @layernorm_bwd_k0: row_fused threads=256 {{.*}} grid<=264 {{.*}} staged_rows=2
// CTAS2: note: @layernorm_bwd_k0: staged-rows=2: the ring's 49152 bytes of shared memory leave room for 2 CTA(s) of 256 threads per SM, against 4 without it

// The register bound (`.minnctapersm`) asks for no more CTAs than the launch's shared memory
// holds: a warp per row with shared accumulators and two rows staged at N = 1024 takes 64 KiB
// of ring and 64 KiB of partials a CTA, one CTA per SM. (Bound for two, ptxas capped it at
// 128 registers and spilled 36 bytes; for one it takes 217 registers, no spill.)
// BOUND: mgpu.func @layernorm_bwd_k0({{.*}}) kernel attributes {cooperative, max_threads = 256, min_ctas_per_sm = 1,

// CTAROOM: schedule: @rmsnorm_bwd_k0: row_fused {{.*}} partials=shared staged_rows=2
// CTAROOM: note: @rmsnorm_bwd_k0: staged-rows=4 taken as 2: a slot of the ring (a row of each row group) is 65536 bytes, and 193536 bytes of shared memory are left a CTA beside its 32768 bytes of partials and its static memory
// A device whose CTAs may have 99 KiB: no ring.
// CTAROOM99: schedule: @rmsnorm_bwd_k0: row_fused {{.*}} partials=shared fast=yes
// CTAROOM99: note: @rmsnorm_bwd_k0: staged-rows=4 not taken: a slot of the ring (a row of each row group) is 65536 bytes, and 62464 bytes of shared memory are left a CTA beside its 32768 bytes of partials and its static memory
