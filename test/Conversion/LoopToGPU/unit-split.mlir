// A nest of split 1 (a partial row per row: the fusion pass plans it for
// two_norms_shared_weight's second norm of K = 64 rows) accumulates into `W[k, j]`, since
// canonicalize folds `k div 1`; the lowering gives the division back before it recognizes the
// partials (`W[i div S, j]`), so the nest is a row kernel, not loop-map's mapped fallback
// ("row-fused accumulate is not W[i div S, j]"). On an H100 the two took 181.0 us and 301.8 at
// 4096 x 16384 (docs/perf.md, forty-first session, call 5). Checked on the simulator against the
// interpreter.
// RUN: morf-opt %S/../../../examples/two_norms_shared_weight.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4096,K=64,N=16384},canonicalize,cse)' | FileCheck %s --check-prefix=LOOP
// RUN: morf-opt %S/../../../examples/two_norms_shared_weight.mlir --pipeline=gpu --size-hints M=4096,K=64,N=16384 --schedule-report -o /dev/null 2>&1 | FileCheck %s
// REQUIRES: numpy
// RUN: mkdir -p %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/two_norms_shared_weight.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4096,K=64,N=16384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4096,K=64,N=16384})' M=9,K=5,N=16384 1e-2 %t/a

// LOOP: } attributes {morf.kernel = {kind = "row-fused", split = 32, style = "looped"}}
// LOOP: mloop.parallel (%[[K:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// LOOP: mloop.accumulate sum %{{.*}}, %workspace_1[%[[K]], %{{.*}}] : !mloop.buffer<?x?xf32>
// LOOP: } attributes {morf.kernel = {kind = "row-fused", split = 1, style = "looped"}}

// CHECK: schedule: @two_norms_shared_weight_k0: row_fused
// CHECK: schedule: @two_norms_shared_weight_k1: row_fused
// CHECK-NOT: mapped
