// `interleave-splits`: in a register-resident row kernel with column partials, split s of S
// takes the row groups s, s + S, s + 2S, ... instead of a block of consecutive rows, so the
// CTAs stream neighbouring rows at any time (as a grid-stride copy does). The split loop's
// row loop then starts at `s x slots + slot`, runs to M and steps `slots x S`; the ring's
// copies ahead step the same. The lowered kernels agree with the interpreter on the
// simulator: a CTA per row with a staged ring (RMSNorm and LayerNorm), a warp per row with
// rows in flight and with shared partials, several rows a warp, a cluster per row, and the
// run-time split (`partials=K`).
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=512 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=512 interleave-splits=true grid=4 staged-rows=2})' | FileCheck %s
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=512 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=512 grid=4 staged-rows=2})' | FileCheck %s --check-prefix=BLOCK
// RUN: mkdir -p %t/a %t/b %t/c %t/d %t/e %t/f %t/g %t/h %t/i
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=512 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=512 interleave-splits=true grid=4 staged-rows=2})' M=301,N=512 1e-2 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=512 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=512 interleave-splits=true grid=4 staged-rows=3})' M=301,N=512 1e-2 %t/b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 interleave-splits=true grid=3 threads-per-row=32 rows-in-flight=2})' M=301,N=384 1e-2 %t/c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=5},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 interleave-splits=true grid=3 threads-per-row=32})' M=301,N=384 1e-2 %t/d
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=7},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 interleave-splits=true grid=4 threads-per-row=16 staged-rows=2})' M=300,N=384 1e-2 %t/e
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=2048 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=2048 interleave-splits=true grid=4 cluster=2 staged-rows=2})' M=77,N=2048 1e-2 %t/f
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1024 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1024 interleave-splits=true grid=5})' M=301,N=1000 1e-2 %t/g
// The H200 cache's combinations (eighteenth session): a split sized by the resident CTAs with
// two rows staged (RMSNorm f32 at 576000 x 384), a fixed partial count with two rows in flight
// and four staged (LayerNorm at 65536 x 1024).
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=1000,N=384 grid=5 interleave-splits=true staged-rows=2})' M=301,N=384 1e-5 %t/h
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1024 partials=5},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=1000,N=1024 interleave-splits=true rows-in-flight=2 staged-rows=4})' M=203,N=1000 1e-2 %t/i
// RUN: morf-opt --list-passes | FileCheck %s --check-prefix=HELP
// RUN: not morf-opt %s --pass-pipeline='builtin.module(lower-loop-to-gpu{interleave-splits=2})' 2>&1 | FileCheck %s --check-prefix=BAD
// The schedule report says whether the option applied.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=512 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=512 interleave-splits=true grid=4 staged-rows=2 report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TAKEN
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{interleave-splits=true report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOT

// The split loop over splits (step: the grid), then the ring's first copy: row group
// `split x slots + slot`, clamped to M - 1; the row loop runs to M (%arg0) in steps of
// `slots x splits`.
// CHECK-LABEL: mgpu.func @rmsnorm_bwd_k0
// CHECK:       mloop.for %[[S:arg[0-9]+]] = %{{[0-9]+}} to %[[NS:[0-9]+]] step %{{[0-9]+}} {
// CHECK-NEXT:    %[[R0:[0-9]+]] = mloop.mul %[[S]], %[[SLOTS:[0-9]+]] : index
// CHECK-NEXT:    %[[STEP:[0-9]+]] = mloop.mul %[[SLOTS]], %[[NS]] : index
// CHECK-NEXT:    %[[START:[0-9]+]] = mloop.add %[[R0]], %{{[0-9]+}} : index
// CHECK-NEXT:    %[[LAST:[0-9]+]] = mloop.sub %arg0, %{{[0-9]+}} : index
// CHECK-NEXT:    mloop.min %[[START]], %[[LAST]] : index
// CHECK:         mloop.for %{{arg[0-9]+}} = %[[START]] to %arg0 step %[[STEP]] iter_args(
// The copy into the ring slot just read takes the row `staged_rows x step` ahead.
// CHECK:           mloop.mul %{{[0-9]+}}, %[[STEP]] : index
// CHECK:           mgpu.copy_async

// Without it, split s is the block of rows [s x S', min((s + 1) x S', M)).
// BLOCK-LABEL: mgpu.func @rmsnorm_bwd_k0
// BLOCK:       mloop.for %[[S:arg[0-9]+]] = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} {
// BLOCK-NEXT:    %[[R0:[0-9]+]] = mloop.mul %[[S]], %[[SC:[0-9]+]] : index
// BLOCK-NEXT:    %[[E:[0-9]+]] = mloop.add %[[R0]], %[[SC]] : index
// BLOCK-NEXT:    %[[END:[0-9]+]] = mloop.min %[[E]], %arg0 : index

// HELP: interleave-splits

// TAKEN: note: @rmsnorm_bwd_k0: the fast form's splits take their rows interleaved across CTAs (interleave-splits)
// TAKEN-NOT: interleave-splits
// NOT: note: @rmsnorm_bwd_k0: interleave-splits not taken: it needs the register-resident (fast) row form
// NOT-NOT: interleave-splits
// BAD: pass 'lower-loop-to-gpu': option 'interleave-splits' expects true or false, got '2'
