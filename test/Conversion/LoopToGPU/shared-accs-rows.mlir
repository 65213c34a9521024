// Shared accumulators for a warp (or a group of lanes) per row (`shared-accs=true` on a
// register-resident row kernel with shared partials): the column partials accumulate in the
// row slot's own rows of the shared partials instead of registers, each thread its own
// columns (no barrier). Each split's start sets them to the identity; each row loads, combines
// and stores them back in 16-byte vectors; the split's end goes straight to the CTA's combine
// in warp order (nothing to store from registers). Off by default (a tuner knob): on the H200
// it took RMSNorm backward at 262144 x 768 from 328.9 to 305.7 us and at 32768 x 768 from 52.1
// to 49.5, and lost elsewhere (LayerNorm's two partials, and where ptxas spilled at two CTAs
// per SM; docs/perf.md, sixteenth session). The lowered kernels agree with the interpreter on
// the simulator: a warp per row with one and two rows in flight, a group of 16 lanes per row
// with LayerNorm's two partials, staged rows, interleaved splits and a run-time split.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=100000,N=256 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=100000,N=256 grid=4 shared-accs=true report=true})' 2>%t.report | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// RUN: mkdir -p %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1024 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1024 grid=4 shared-accs=true})' M=301,N=1024 1e-2 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1024 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1024 grid=4 shared-accs=true rows-in-flight=2})' M=301,N=1000 1e-2 %t/b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=5},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 grid=3 threads-per-row=16 shared-accs=true})' M=301,N=384 1e-2 %t/c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=768 partials=7},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=768 grid=4 staged-rows=3 shared-accs=true interleave-splits=true})' M=203,N=768 1e-2 %t/d
// The H200 cache's LayerNorm entry at 576000 x 384 (eighteenth session): 16 lanes a row,
// two rows staged, chunk-major bodies, a split sized by the resident CTAs.
// RUN: mkdir -p %t/e
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=1000,N=384 grid=5 threads-per-row=16 staged-rows=2 shared-accs=true chunk-major=true})' M=301,N=384 1e-2 %t/e
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=100000,N=256 splits=64},canonicalize,cse,gpu-choose-schedule{size-hints=M=100000,N=256 shared-accs=true})' | FileCheck %s --check-prefix=ATTR
// A warp per row with global partials (one warp a CTA) does not take it, and says so.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=100000,N=1024 partials=0 splits=512},canonicalize,cse,lower-loop-to-gpu{size-hints=M=100000,N=1024 threads=32 threads-per-row=32 shared-accs=true report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOT

// The fast form: the slot's partial row set to the identity at the split's start (two
// 16-byte vectors of the thread's chunk of 8 columns), loaded, combined and stored back per
// row, then at the split's end a barrier and the combine over the warps, with no register
// accumulators stored first.
// CHECK-LABEL: mgpu.func @rmsnorm_bwd_k0
// CHECK:         %[[SM:[0-9]+]] = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
// CHECK:         mgpu.store_vec %[[ID:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[SM]][
// CHECK-NEXT:    mloop.add
// CHECK-NEXT:    mgpu.store_vec %[[ID]], %[[ID]], %[[ID]], %[[ID]], %[[SM]][
// CHECK-NEXT:    mloop.for
// CHECK:           mgpu.load_vec %[[SM]][%{{[0-9]+}}] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
// CHECK:           mgpu.load_vec %[[SM]][%{{[0-9]+}}] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
// CHECK:           mgpu.store_vec %{{.*}}, %[[SM]][
// CHECK:           mgpu.store_vec %{{.*}}, %[[SM]][
// CHECK:           mloop.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    mgpu.barrier

// REPORT: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=32 {{.*}}partials=shared {{.*}}fast=yes(N=256 vector=8 chunks=1 shared-accs)

// ATTR: fast = {chunks = 1, cols = 256, shared_accs = 1, vector = 8}

// NOT: schedule: @rmsnorm_bwd_k0: row_fused threads=32 {{.*}}partials=global fast=yes(N=1024 vector=8 chunks=4)
// NOT: note: @rmsnorm_bwd_k0: shared-accs not taken: a warp per row keeps column partials in shared memory only with shared partials (several rows in flight per CTA)
