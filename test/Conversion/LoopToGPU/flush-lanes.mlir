// The flush of a split's shared partials with a group of lanes a column (`flush_lanes`):
// where a CTA has at least 256 row slots (a thread per row) and at least twice as many
// threads as columns, each column is combined by up to a warp of lanes: lane l takes the
// slots l, l + L, ... in order, a butterfly of the group's width combines them, and the
// group's first lane stores. Fewer slots keep the serial form (a thread a column walks every
// slot). The order is fixed, so the result is the same on every run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,lower-loop-to-gpu{size-hints=M=8388608,N=2})' | FileCheck %s --check-prefix=LANES
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=1000000,N=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000000,N=16})' | FileCheck %s --check-prefix=SERIAL
// The simulator against the interpreter: max and sum partials, the hinted N and a run-time N
// the kernel was not compiled for (the guard's looped form flushes the same way), LayerNorm's
// two partials, and a column count that is not a multiple of the groups.
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/colmax_rowsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=5})' M=3001,N=2 1e-5 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/colmax_rowsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=5})' M=3001,N=13 1e-5 %t/b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=2 grid=3})' M=2999,N=2 1e-2 %t/c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/row_col_stats.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=4},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=4 grid=3})' M=1001,N=4 1e-5 %t/d

// After the row loop: a barrier, then a group of 32 lanes a column.
// LANES: mgpu.func @colmax_rowsum_k0
// LANES: mgpu.barrier
// LANES-NEXT: %[[G:[0-9]+]] = mloop.div %{{[0-9]+}}, %[[L:[0-9]+]] : index
// LANES-NEXT: %[[LANE:[0-9]+]] = mloop.rem %{{[0-9]+}}, %[[L]] : index
// LANES-NEXT: %[[FIRST:[0-9]+]] = mloop.cmp eq, %[[LANE]], %{{[0-9]+}} : index
// LANES-NEXT: mloop.for %[[J:arg[0-9]+]] = %[[G]] to %{{[a-z0-9]+}} step %{{[0-9]+}} {
// LANES-NEXT: %[[PART:[0-9]+]] = mloop.for %{{arg[0-9]+}} = %[[LANE]] to %{{[0-9]+}} step %[[L]] iter_args
// LANES: mgpu.load %{{[0-9]+}}[%{{[0-9]+}}] : !mgpu.ptr<f32, 3>
// LANES-NEXT: mloop.max
// LANES: mgpu.warp_reduce max %[[PART]] {width = 32} : f32
// LANES-NEXT: mgpu.if %[[FIRST]] {
// LANES: mgpu.store
// LANES: mgpu.barrier

// 128 slots (two lanes a row): the serial form.
// SERIAL: mgpu.func @layernorm_bwd_k0
// SERIAL-NOT: width = 16
// SERIAL: mgpu.return
