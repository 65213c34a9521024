// The schedule report: `--schedule-report` (or the pass option `report` of
// lower-loop-to-gpu) prints, per top-level nest, its location, the chosen mapping and its
// numbers, where the schedule came from, and for a poor mapping (sequential,
// thread_per_point) of a nest that reduces, `note: fallback:` lines saying why.
//
// A row reduction: a good mapping, no fallback note.
// RUN: morf-opt %s --pipeline=gpu --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=ROW
// RUN: morf-opt %s --lower-tensor-to-loop --lower-loop-to-gpu=report 2>&1 >/dev/null | FileCheck %s --check-prefix=ROW
// ROW: schedule-report.mlir:[[@LINE+8]]:{{[0-9]+}}: schedule: @rowsum_k0: row_reduction threads=256 threads_per_row=32 rows_per_cta=8 grid<=1056 vector=4 partials=none stream_loads fast=no (from the heuristic)
// ROW-NOT: fallback
//
// Without the flag nothing is printed.
// RUN: morf-opt %s --pipeline=gpu 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=NONE
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pipeline=gpu 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=NONE
// NONE-NOT: {{.}}
func.func @rowsum(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> tensor<?xf32> {
  %s = mtensor.reduce sum %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// RMSNorm forward: the fused row kernel has no split (no column partials): the row-fused
// form without partials, a warp per row at N=1024 with the register-resident fast path.
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=RMS
// RMS: rmsnorm_fwd.mlir:{{[0-9]+}}:{{[0-9]+}}: schedule: @rmsnorm_fwd_k0: row_fused threads=256 threads_per_row=32 rows_per_cta=8 grid<=1056 {{.*}} partials=none fast=yes(N=1024 vector=8 chunks=4) (from the heuristic)
// RMS-NOT: fallback
//
// A row-fused nest that accumulates without a split: no template takes it (they would run it
// on one thread), so lower-loop-to-gpu maps it with loop-map's strategy (each W[i, j] has one
// writer) and lowers it mechanically; the report says so and why.
// RUN: morf-opt %S/Inputs/rowfused-acc-no-split.mlir --lower-loop-to-gpu --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=ACC
// ACC: rowfused-acc-no-split.mlir:10:3: schedule: @acc_k0: mapped threads=256 grid<=1056 [{level = "grid", persistent = true}] > [{level = "warp", size = 8}] > reduce [{level = "lane"}] > [{level = "lane"}] (from lower-loop-to-gpu's fallback to loop-map's strategy; the templates would run it on one thread: row-fused nest accumulates without a positive 'split' in its morf.kernel attribute (no row_fused); accumulate the other mappings cannot prove race-free
// ACC-NOT: sequential
//
// A forced CTA size whose threads cannot hold the row in registers: the row stays in a loop
// (3x slower on the H200), and the report says so.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 threads=512 rows-in-flight=1 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=FORCED
// FORCED: schedule: @rmsnorm_bwd_k0: row_fused threads=512 {{.*}} fast=no
// FORCED-NEXT: note: @rmsnorm_bwd_k0: row kept in a loop, not in registers: ~{{[0-9]+}} registers estimated for 32 columns a thread, over the 128 a thread of 512 may hold
//
// A top-level mloop.for: nothing maps it, one thread runs it, and the note says why.
// RUN: morf-opt %S/Inputs/top-level-for.mlir --lower-loop-to-gpu --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=FOR
// FOR: top-level-for.mlir:8:8: schedule: @prefix_k0: sequential threads=32 {{.*}} (from the heuristic)
// FOR-NEXT: top-level-for.mlir:8:8: note: fallback: top-level mloop.for (no parallel loop to map)
//
// tanh backward with a bias gradient: the pointwise kernel with partial sums runs in the
// row form (a warp per row, partials in shared memory), then the final reduction, in the
// row kernel's grid behind a grid barrier (with its CTA size); both good mappings, no fallback.
// Without size hints the row kernel has no register-resident form: its looped form loads
// 8-element vectors along the row.
// RUN: morf-opt %S/../../../examples/tanh_bwd_bias.mlir --pipeline=gpu --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=TANH
// TANH: tanh_bwd_bias.mlir:{{[0-9]+}}:{{[0-9]+}}: schedule: @tanh_bwd_bias_k0: row_fused threads=256 threads_per_row=32 rows_per_cta=8 {{.*}} partials=shared {{.*}}(from the heuristic)
// TANH-NEXT: tanh_bwd_bias.mlir:{{[0-9]+}}:{{[0-9]+}}: note: @tanh_bwd_bias_k0: looped form, the row's loops in order: 8-element vectors
// TANH-NEXT: tanh_bwd_bias.mlir:{{[0-9]+}}:{{[0-9]+}}: schedule: @tanh_bwd_bias_k1: final_reduction threads=256 threads_per_row=4 rows_per_cta=64 {{.*}} vector=4 {{.*}}(from the heuristic)
// TANH-NEXT: tanh_bwd_bias.mlir:{{[0-9]+}}:{{[0-9]+}}: note: @tanh_bwd_bias_k1 runs in the grid of the launch before it, after a grid barrier (final=grid)
// TANH-NOT: fallback
//
// A schedule from the IR: a split-K column reduction edited, and one made sequential (the
// note names the mapping the heuristic would take).
// RUN: morf-opt %S/Inputs/schedule-colsum-edited.mlir --lower-loop-to-gpu --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=EDIT
// EDIT: schedule: @colsum_k0: split_partial {{.*}} split_rows=3 fast=no (from the nest's morf.schedule attribute)
// EDIT-NEXT: note: @colsum_k0: split-K partial: at least 3 rows a block, raised at run time until the blocks fit the threads the device holds at once (one wave; split-rows=N fixes it)
// EDIT-NEXT: schedule: @colsum_k0_final: final_reduction threads=64 {{.*}} (from the nest's morf.schedule attribute)
// EDIT-NOT: fallback
// RUN: morf-opt %S/Inputs/schedule-colsum-sequential.mlir --lower-loop-to-gpu --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=SEQ
// SEQ: schedule: @colsum_k0: sequential threads=32 {{.*}} grid<=1 {{.*}} (from the nest's morf.schedule attribute)
// SEQ-NEXT: note: fallback: the nest's morf.schedule attribute asks for it (the heuristic maps it as "split_partial")
//
// gpu-choose-schedule (a dry run of the lowering) prints nothing even with `report`.
// RUN: morf-opt %s --lower-tensor-to-loop --gpu-choose-schedule=report 2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=NONE
