// The reload form of a register-resident row kernel: the row is loaded again after each row
// reduction (from the staging ring when rows are staged, else from global memory) instead of
// held in registers across it, and `[j]` vectors are loaded per row instead of hoisted. The
// heuristic takes it for a CTA per row whose row does not fit the registers (N = 16384: 94
// registers to hold 16 columns a thread of 1024, over 64; the CTA grows to 32 columns a thread
// of 512 and reloads them at ~94, with two rows staged), and says so. `reload=true` forces it,
// `reload=false` forbids it (the looped form then runs, as before). The lowered kernels agree
// with the interpreter on the simulator (a CTA per row with a staged ring, without, and a warp
// per row), and a schedule attribute with a bad `reload` is an error.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=4096,N=16384 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=AUTO
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4096,N=16384 reload=false report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=40,N=1100},canonicalize,cse,lower-loop-to-gpu{size-hints=M=40,N=1100 staged-rows=4 reload=true batch-reductions=false})' | FileCheck %s --check-prefix=IR
// RUN: mkdir -p %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1100},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1100 grid=3 staged-rows=4 reload=true})' M=29,N=1100 1e-2 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1100},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1100 grid=2 staged-rows=1 reload=true})' M=17,N=1100 1e-2 %t/b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 threads=64 grid=2 reload=true})' M=37,N=384 1e-2 %t/c
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384},canonicalize,cse,gpu-choose-schedule{size-hints=M=4096,N=16384})' | sed 's/reload = 1/reload = 2/' > %t/bad.mlir
// RUN: not morf-opt %t/bad.mlir --lower-loop-to-gpu 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{reload=maybe})' 2>&1 | FileCheck %s --check-prefix=OPT
// Shared accumulators: LayerNorm's two partials at N = 16384 come within an eighth of the
// registers beside a pass (~126 of 128 at 512 threads), so without a ring (`staged-rows=1`)
// they accumulate in shared memory (128 KiB, one CTA per SM, no room left for a ring), and the
// report says so. By default the ring wins: the partials stay in registers and three rows are
// staged (H200, 4096 x 16384: 165.6 -> 137.9 us; ptxas 128 registers, no spill), said.
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4096,N=16384 staged-rows=1 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ACCS
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=4096,N=16384 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=RING
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=100000,N=32768 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=ACCS-CLUSTER
// A row without a row reduction (a bias gradient) that its CTA cannot hold streams in the
// reload form at the size `reload=true` takes (the looped form ran 3-5x slower on the H200:
// docs/perf.md, fortieth session); at N = 32768 a cluster of 2 CTAs, each streaming 16384
// columns so; one CTA of 1024 there (`cluster=1`) is said to be tight. On the simulator,
// compiled for 4096 x 16384 and run at 5 rows, and the cluster at 3 rows.
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=4096,N=16384 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=STREAM
// RUN: morf-opt %S/../../../examples/tanh_bwd_bias.mlir --pipeline=gpu --size-hints M=2048,N=32768 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=STREAM-CLUSTER
// RUN: morf-opt %S/../../../examples/tanh_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=2048,N=32768},canonicalize,cse,lower-loop-to-gpu{size-hints=M=2048,N=32768 cluster=1 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=STREAM-TIGHT
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384 partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4096,N=16384})' M=5,N=16384 1e-2 %t/stream
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/tanh_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=2048,N=32768 partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=2048,N=32768})' M=3,N=32768 1e-2 %t/stream2
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1100},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1100 grid=3 staged-rows=2 shared-accs=true})' M=29,N=1100 1e-2 %t/d
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384},canonicalize,cse,gpu-choose-schedule{size-hints=M=4096,N=16384 staged-rows=1})' | sed 's/reload = 1, //' > %t/bad2.mlir
// RUN: not morf-opt %t/bad2.mlir --lower-loop-to-gpu 2>&1 | FileCheck %s --check-prefix=BAD2
// RUN: not morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{shared-accs=maybe})' 2>&1 | FileCheck %s --check-prefix=OPT2
// At N = 32768 in one CTA (`cluster=1`; the heuristic takes a cluster of 2 there, cluster.mlir:
// 1024 threads of 32 columns) only shared accumulators come near the 64
// registers, without the margin: taken (the looped form is slower still), and said.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=8192,N=32768},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8192,N=32768 cluster=1 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=TIGHT
// A forced reload form takes the CTA size the heuristic's would, 32 columns a thread, not the
// one chosen for holding the row (1024 at N = 16384): LayerNorm with its partials in registers
// and three rows staged (the tuner's recipe) runs 512 threads; an asked CTA size is kept.
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4096,N=16384 reload=true shared-accs=false staged-rows=3 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=FORCED
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4096,N=16384 threads=1024 reload=true shared-accs=false report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ASKED

// AUTO: schedule: @rmsnorm_bwd_k0: row_fused threads=512 threads_per_row=512 rows_per_cta=1 {{.*}}staged_rows=2 fast=yes(N=16384 vector=8 chunks=4 reload)
// AUTO: note: @rmsnorm_bwd_k0: row loaded again after each row reduction (reload): holding 16 columns a thread needs ~94 registers, over the 64 a thread of 1024 may hold; reloading 32 columns a thread of 512 needs ~94

// OFF: schedule: @rmsnorm_bwd_k0: row_fused threads=1024 {{.*}}fast=no
// OFF: note: @rmsnorm_bwd_k0: row kept in a loop, not in registers

// The staged rows (two inputs, three chunks a thread) are read from the ring before the first
// row reduction and again after each of the two (LayerNorm's, kept apart here by
// `batch-reductions=false`: reloading from a ring batches them by default, batch-reductions.mlir),
// then the slot takes a next row. Each reduction is one barrier (the slots' halves alternate).
// IR: mgpu.func @layernorm_bwd_k0
// IR: mgpu.copy_async_wait {pending = 3}
// IR-COUNT-6: mgpu.load_vec %{{[0-9]+}}[%{{[0-9]+}}] : !mgpu.ptr<bf16, 3>
// IR: mgpu.barrier
// IR-NOT: mgpu.barrier
// IR-COUNT-6: mgpu.load_vec %{{[0-9]+}}[%{{[0-9]+}}] : !mgpu.ptr<bf16, 3>
// IR: mgpu.barrier
// IR-NOT: mgpu.barrier
// IR-COUNT-6: mgpu.load_vec %{{[0-9]+}}[%{{[0-9]+}}] : !mgpu.ptr<bf16, 3>
// IR-NOT: mgpu.barrier
// IR: mgpu.copy_async_commit

// BAD: bad.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'mloop.parallel' op 'morf.schedule' entry 'fast' has a 'reload' that is not 0 or 1

// OPT: option 'reload' must be 'auto', 'true' or 'false', got 'maybe'

// ACCS: schedule: @layernorm_bwd_k0: row_fused threads=512 threads_per_row=512 rows_per_cta=1 {{.*}}fast=yes(N=16384 vector=8 chunks=4 reload shared-accs)
// ACCS: note: @layernorm_bwd_k0: row loaded again after each row reduction (reload): {{.*}}; reloading 32 columns a thread of 512 with the partials in shared memory (131072 bytes) needs ~62
// ACCS: note: @layernorm_bwd_k0: no rows staged: two rows of 65536 bytes do not fit the 82944 bytes of shared memory the 131072 bytes of shared accumulators leave a CTA

// STREAM: schedule: @gelu_bwd_bias_k0: row_fused threads=512 threads_per_row=512 rows_per_cta=1 {{.*}}staged_rows=2 fast=yes(N=16384 vector=8 chunks=4 reload)
// STREAM: note: @gelu_bwd_bias_k0: row streamed through the registers in steps (reload form, no row reduction): holding 16 columns a thread needs ~78 registers, over the 64 a thread of 1024 may hold; streaming 32 columns a thread of 512 needs ~94
// STREAM-NOT: looped form

// STREAM-CLUSTER: schedule: @tanh_bwd_bias_k0: row_fused threads=512 {{.*}}cluster=2 fast=yes(N=32768 vector=8 chunks=4 reload)
// STREAM-CLUSTER-NOT: exchange

// STREAM-TIGHT: schedule: @tanh_bwd_bias_k0: row_fused threads=1024 {{.*}}fast=yes(N=32768 vector=8 chunks=4 reload)
// STREAM-TIGHT: note: @tanh_bwd_bias_k0: the streamed row needs ~94 of the 64 registers a thread of 1024 may hold: ptxas may spill

// RING: schedule: @layernorm_bwd_k0: row_fused threads=512 threads_per_row=512 rows_per_cta=1 {{.*}}staged_rows=3 fast=yes(N=16384 vector=8 chunks=4 reload)
// RING: note: @layernorm_bwd_k0: partials in registers (~126 of the 128 registers a thread of 512 may hold: ptxas may spill), not in shared memory: its 131072 bytes would leave no room for two staged rows, and the row would come again from L2
// RING: note: @layernorm_bwd_k0: 2 independent row reductions reduced together, one barrier for them a row (batch-reductions)

// A cluster of two per row (N = 32768) keeps its shared accumulators (the register partials
// spilled 164 bytes there and lost: 8390 against 7439 us at 100000 x 32768).
// ACCS-CLUSTER: schedule: @layernorm_bwd_k0: row_fused threads=512 {{.*}}cluster=2 fast=yes(N=32768 vector=8 chunks=4 reload shared-accs)

// BAD2: bad2.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'mloop.parallel' op 'morf.schedule' entry 'fast' has 'shared_accs' without either 'reload', a CTA per row and partials = "global", or a warp per row and partials = "shared"

// TIGHT: schedule: @rmsnorm_bwd_k0: row_fused threads=1024 {{.*}}fast=yes(N=32768 vector=8 chunks=4 reload shared-accs)
// TIGHT: note: @rmsnorm_bwd_k0: reload form within an eighth of the 64 registers a thread of 1024 may hold: ptxas may spill

// OPT2: option 'shared-accs' must be 'auto', 'true' or 'false', got 'maybe'

// FORCED: schedule: @layernorm_bwd_k0: row_fused threads=512 threads_per_row=512 rows_per_cta=1 {{.*}}staged_rows=3 fast=yes(N=16384 vector=8 chunks=4 reload)

// ASKED: schedule: @layernorm_bwd_k0: row_fused threads=1024 threads_per_row=1024 rows_per_cta=1 {{.*}}fast=yes(N=16384 vector=8 chunks=2 reload)
