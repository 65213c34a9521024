// A split decoupled from the size (`fuse-mixed-reductions{partials=K}`): the column reduction
// partialed in the row-fused kernel takes at most K partials of `max(ceil(M / K), 1)` rows,
// computed at run time, in place of the plan's fixed split. A persistent grid of K CTAs then
// takes one balanced split each whatever M (no second, nearly empty round; one program serves
// every M of a bucket). RMSNorm backward at 576000 x 384 on the H200 (docs/perf.md, session
// 11): 344.3 us with 256-row splits, 335.2 us with partials=528.
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=524288,N=384 partials=264 report=true},canonicalize,cse)' 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.err
// The lowering divides by the host value: one launch, no fill of the workspace (each split's
// partial row is stored once), and the grid asks for ceil(M / S) CTAs.
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=524288,N=384 partials=264},canonicalize,cse,lower-loop-to-gpu{size-hints=M=524288,N=384})' | FileCheck %s --check-prefix=GPU
// The simulator against the interpreter: fewer partials than rows, more partials than rows
// (a split of one row), and several rows a warp with staged rows.
// RUN: mkdir -p %t
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=3},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 threads=64 grid=2})' M=37,N=384 1e-2 %t/a
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 threads=64 grid=3})' M=13,N=384 1e-2 %t/b
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=4},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 threads=64 threads-per-row=16 staged-rows=2 grid=2})' M=41,N=384 1e-2 %t/c
// A partial outside a row-fused kernel needs a fixed split: the option is ignored, and the
// report says so.
// RUN: not morf-opt %S/../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,fuse-mixed-reductions{partials=many})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: morf-opt %S/partial-two-reduced-dims.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=64,M=65536,N=8 device=launch=1e-3 partials=64 report=true},canonicalize,cse)' 2>&1 | FileCheck %s --check-prefix=IGNORED

// CHECK-LABEL: func.func @rmsnorm_bwd
// CHECK:       %[[M:.*]] = mloop.dim %dy, 0
// CHECK:       %[[K:.*]] = mloop.constant 264 : index
// CHECK:       %[[PER:.*]] = mloop.div %{{.*}}, %[[K]] : index
// CHECK:       %[[S:.*]] = mloop.max %[[PER]], %{{.*}} : index
// CHECK:       %[[NS:.*]] = mloop.div %{{.*}}, %[[S]] : index
// CHECK:       %workspace = mloop.alloc(%[[NS]], %{{.*}}) : !mloop.buffer<?x?xf32>
// CHECK:         mloop.div %arg0, %[[S]] : index
// CHECK-NEXT:    mloop.accumulate sum %{{.*}}, %workspace[
// CHECK:       } attributes {morf.kernel = {kind = "row-fused", partials = 264, style = "persistent"}}
// CHECK:       mloop.reduce sum (%split) = (%{{.*}}) to (%[[NS]])
// CHECK:       } attributes {morf.kernel = {kind = "final", partials = 264}}

// REPORT: @rmsnorm_bwd: partials=264: each column reduction's split is ceil(rows / 264) rows at run time, in place of the plan's fixed split

// GPU-NOT:     mgpu.launch @{{.*}}fill
// GPU:         mgpu.launch @rmsnorm_bwd_k0
// GPU-NOT:     mgpu.launch
// GPU:         mgpu.func @rmsnorm_bwd_k0

// IGNORED: partials=K ignored: a partial of the chosen plan runs outside a row-fused kernel, which needs a fixed split
// IGNORED: {kind = "pointwise", split =
// BAD: pass 'fuse-mixed-reductions': option 'partials' expects an unsigned integer, got 'many'
