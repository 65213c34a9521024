// Several rows a warp: a register-resident row of 16 vectors or fewer takes a group of lanes
// (the next power of two of its vectors), `threads / tpr` rows a CTA, and its reductions are
// `mgpu.warp_reduce {width = tpr}`; `threads-per-row=16` asks for it on a longer row. The
// lowered kernels agree with the interpreter on the simulator (a split's last rows leave some
// groups of a warp without a row). A schedule attribute with a group that is not a power of
// two is an error.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=8388608,N=2 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=N2
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=4096,N=64 | FileCheck %s --check-prefix=N64
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=576000,N=384 threads-per-row=16 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=FORCED
// The heuristic keeps a warp a row at N = 384 (bf16: 48 vectors, the second chunk half idle)
// and says so; 16 lanes a row is a knob. At N = 1024 every lane is busy: no note. Forced 16
// lanes: no note either.
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=576000,N=384 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=IDLE
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=BUSY
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=576000,N=384 threads-per-row=16 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=BUSY
// RUN: mkdir -p %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 threads=64 threads-per-row=16 grid=2})' M=37,N=384 1e-2 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=64 grid=2})' M=45,N=64 1e-2 %t/b
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=64},canonicalize,cse,gpu-choose-schedule{size-hints=M=4096,N=64})' | sed 's/threads_per_row = 8,/threads_per_row = 12,/' > %t/bad.mlir
// RUN: not morf-opt %t/bad.mlir --lower-loop-to-gpu 2>&1 | FileCheck %s --check-prefix=BAD
// A forced width the lowering cannot take, or a row the register-resident form cannot hold at
// that width, is said in the report (not silent):
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=576000,N=384 threads-per-row=12 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=TWELVE
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384},canonicalize,cse,lower-loop-to-gpu{size-hints=M=576000,N=384 threads-per-row=8 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=EIGHT

// N2: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=1 rows_per_cta=256 {{.*}}fast=yes(N=2 vector=2 chunks=1 packed-rows=4)

// N64: mgpu.func @rmsnorm_bwd_k0
// N64: mgpu.warp_reduce sum %{{.*}} {width = 8} : f32

// FORCED: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=16 rows_per_cta=16 {{.*}}fast=yes(N=384 vector=8 chunks=3)

// BAD: bad.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'mloop.parallel' op 'morf.schedule' entry 'threads_per_row' of a "row_fused" must be 1, 2, 4, 8, 16, 32 or 'threads' (256), got 12

// TWELVE: note: @rmsnorm_bwd_k0: threads-per-row=12 taken as 32: a row takes a power of two of lanes under 32, a warp, or the CTA of 256 threads
// EIGHT: note: @rmsnorm_bwd_k0: row kept in a loop, not in registers: threads-per-row=8 gives 48 columns a thread, over the 32 the register-resident form holds

// IDLE: schedule: @layernorm_bwd_k0: row_fused threads=256 threads_per_row=32
// IDLE: note: @layernorm_bwd_k0: a warp a row leaves 16 of its 2 x 32 vector slots idle (N = 384: 48 vectors of 8); 16 lanes a row take 3 chunks with 0% idle (threads-per-row=16, a tuner knob: twice the columns a thread)
// BUSY-NOT: vector slots idle
