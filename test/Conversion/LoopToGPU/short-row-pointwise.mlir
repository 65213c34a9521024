// Pointwise work over short rows takes the row form (docs/conversion-loop-to-gpu.md, "Short
// rows of pointwise nests"): a 2-D pointwise nest with partials (`{kind = "pointwise", split =
// S}`, what fusion makes of gelu_bwd_bias's dx beside db = sum_i dy) becomes a row kernel
// without reductions at any known row length, so that short rows get the row form's packed
// rows (several rows a thread, 16-byte or aligned pieces, warp-transposed where a group is 4
// pieces or more) instead of a thread per (split, column) walking its split one element at a
// time; the cost model prices it so, and fusion takes the one-kernel plan at N = 7 (it kept
// two launches and a scalar pointwise kernel before: 14.7% of the floor on an H100). A pointwise
// nest without partials (the unfused pipeline's) takes the row form where its rows do not fill
// its thread-per-point vectors and 2, 4 or 8 of them make a group of 8-byte pieces, unless
// every access is at the point's flat position (tanh_bwd_bias's dx: then the thread-per-point
// form's flat vectors, 16 bytes a thread at any N, as at N = 17); elsewhere (a multiple of 8
// bf16) it keeps thread-per-point, and a column reduction's partials alone keep their form
// under 64 columns. Rows over several dims (3-D inputs [B, T, N] whose db
// sums over B and T) collapse into one flat row loop first, at any N: such a nest was a thread
// per (split, column) at every width before (the cost model: 16% of the floor at 64 x 1024 x
// 1024). Where the flat partials form applies by default (rows of more than 64 bytes that are
// not whole vectors or are under 1024 bytes, every access at the point's flat position:
// flat-partials.mlir) it takes these nests instead; the runs here that pin the row form say
// flat-partials=false.

// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7 flat-partials=false})' --schedule-report 2>&1 >%t/seven.mlir | FileCheck %s --check-prefix=FUSED
// RUN: FileCheck %s --check-prefix=IR < %t/seven.mlir
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(func.func(lower-tensor-to-loop,fuse-mixed-reductions{report=true size-hints=M=4194304,N=7}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=8388608,N=3 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=UNFUSED
// RUN: morf-opt %S/../../../examples/tanh_bwd_bias.mlir --pipeline=gpu-unfused --size-hints M=8388608,N=3 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=FLAT3
// RUN: morf-opt %S/../../../examples/tanh_bwd_bias.mlir --pipeline=gpu-unfused --size-hints M=1048576,N=17 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=SEVENTEEN
// RUN: morf-opt %S/../../../examples/tanh_bwd_bias.mlir --pipeline=gpu-unfused --size-hints M=1048576,N=24 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=TWENTYFOUR
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --emit=ptx --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7 flat-partials=false})' | FileCheck %s --check-prefix=PTX
// RUN: morf-opt %S/Inputs/tanh_bwd_bias_3d.mlir --pipeline=gpu --size-hints B=64,T=1024,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=THREE-D
// RUN: morf-opt %S/Inputs/tanh_bwd_bias_3d.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=B=64,T=65536,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=B=64,T=65536,N=7 flat-partials=false})' --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=THREE-D-SEVEN
// RUN: morf-opt %S/Inputs/tanh_bwd_bias_3d.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=64,T=1024,N=1024},canonicalize,cse,gpu-choose-schedule{size-hints=B=64,T=1024,N=1024})' | FileCheck %s --check-prefix=COLLAPSED

// The simulator against the interpreter at odd M: fused at N = 7 (few CTAs: several splits a
// CTA, warps at the splits' ends), 3, 1 and 33; unfused at N = 3 and 14 (flat vectors) and
// RMSNorm backward unfused at N = 3 (the row form).
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7 grid=3 flat-partials=false})' M=3001,N=7 1e-2 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/tanh_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=2})' M=2999,N=3 1e-2 %t/b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=1 grid=2})' M=1001,N=1 1e-2 %t/c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/tanh_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=1048576,N=33},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=1048576,N=33 grid=2})' M=301,N=33 1e-2 %t/d
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/tanh_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=2})' M=2999,N=3 1e-2 %t/e
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/gelu_bwd_bias.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=2097152,N=14 grid=2})' M=1003,N=14 1e-2 %t/f
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3 grid=2})' M=2999,N=3 1e-2 %t/j
// 3-D, fused at N = 7 and 384 and unfused at N = 3:
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/tanh_bwd_bias_3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=64,T=65536,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=B=64,T=65536,N=7 grid=3})' B=3,T=1001,N=7 1e-2 %t/g
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/tanh_bwd_bias_3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=64,T=65536,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=B=64,T=65536,N=7 grid=3 flat-partials=false})' B=3,T=1001,N=7 1e-2 %t/g2
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/tanh_bwd_bias_3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=16,T=4096,N=384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=B=16,T=4096,N=384 grid=3})' B=5,T=77,N=384 1e-2 %t/h
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/tanh_bwd_bias_3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=B=64,T=65536,N=3 grid=2})' B=2,T=999,N=3 1e-2 %t/i

// One launch: the row kernel (packed rows, warp-transposed) and its final reduction in its grid.
// FUSED: schedule: @gelu_bwd_bias_k0: row_fused threads=256 threads_per_row=1 {{.*}} partials=shared {{.*}}fast=yes(N=7 vector=7 chunks=1 packed-rows=4 warp-transpose)
// FUSED: note: @gelu_bwd_bias_k0: packed rows: a thread's row is 14 bytes a row input, so it loads and stores 4 rows with 7 accesses (56 bytes)
// FUSED: schedule: @gelu_bwd_bias_k1: final_reduction
// FUSED: note: @gelu_bwd_bias_k1 runs in the grid of the launch before it, after a grid barrier (final=grid)
// IR-COUNT-1: mgpu.launch
// IR: mgpu.func @gelu_bwd_bias_k0(
// IR: mgpu.warp_barrier
// IR: mgpu.load_vec {{.*}} {nc, stream} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16

// The cost model prices the fused kernel in the row form and takes it.
// PLAN: #1 {{.*}} | 1 launches | {{.*}} <- chosen
// PLAN-NEXT: fused[nest0 + partial(nest1, S={{[0-9]+}})] ; final(nest1, S={{[0-9]+}})
// PLAN: chosen: fused[nest0 + partial(nest1

// Unfused: RMSNorm backward's dx (w[j] and rstd[i] beside the rows) in the row form, and the
// report says why; tanh_bwd_bias's dx (y, dy and dx over the same [M, N]) in flat vectors.
// UNFUSED: schedule: @rmsnorm_bwd_k2: row_fused threads=256 threads_per_row=1 {{.*}} fast=yes(N=3 vector=3 chunks=1 packed-rows=4)
// UNFUSED-NEXT: note: @rmsnorm_bwd_k2: a pointwise nest over short rows that its thread-per-point vectors would not fill, lowered as a row kernel
// FLAT3: schedule: @tanh_bwd_bias_k1: thread_per_point {{.*}} vector=8 partials=none
// FLAT3-NEXT: note: @tanh_bwd_bias_k1: flat vectors: 8 consecutive points
// SEVENTEEN: schedule: @tanh_bwd_bias_k1: thread_per_point {{.*}} vector=8 partials=none
// SEVENTEEN-NEXT: note: @tanh_bwd_bias_k1: flat vectors: 8 consecutive points
// TWENTYFOUR: schedule: @tanh_bwd_bias_k1: thread_per_point {{.*}} vector=8 partials=none

// PTX: bar.warp.sync -1;
// PTX: ld.global.cs.nc.v4.b16
// PTX: st.global.v4.b16

// THREE-D: schedule: @tanh_bwd_bias_3d_k0: row_fused threads=256 threads_per_row=32 {{.*}} partials=shared {{.*}}fast=yes(N=1024 vector=8
// THREE-D: schedule: @tanh_bwd_bias_3d_k1: final_reduction
// THREE-D-SEVEN: schedule: @tanh_bwd_bias_3d_k0: row_fused threads=256 threads_per_row=1 {{.*}}fast=yes(N=7 vector=7 chunks=1 packed-rows=4 warp-transpose)
// THREE-D-SEVEN-NOT: split_partial
// The rows' two dims are one flat row loop (the old ivs recomputed from it), the partial's
// split index `row div S`.
// COLLAPSED: mloop.alloc(%{{.*}}) : !mloop.buffer<?x?xf32>
// COLLAPSED: %[[R:.*]] = mloop.mul %0, %1 : index
// COLLAPSED-NOT: mloop.parallel
// COLLAPSED: mloop.parallel (%[[ROW:.*]]) = (%{{.*}}) to (%[[R]]) step
// COLLAPSED: mloop.parallel (%[[J:.*]]) =
// COLLAPSED: %[[S:.*]] = mloop.div %[[ROW]], %{{.*}} : index
// COLLAPSED: mloop.accumulate sum %{{.*}}, %workspace[%[[S]], %[[J]]]
// COLLAPSED: morf.kernel = {kind = "row-fused", split = 256, style = "persistent"}
