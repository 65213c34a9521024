// With the fusion report, each fused kernel carries the schedule of lower-loop-to-gpu's
// heuristic the cost model priced it with (`priced` in `morf.kernel`; the report's "priced
// schedule of" lines), and the schedule report says where the lowering runs another. LayerNorm
// backward at 65536 x 200 runs the schedule it was priced with; tanh_bwd_bias at 65536 x 1024
// does not: the lowering stages its heavy row through shared memory, which the model, counting
// a row's instructions in the plan (about half the lowering's count), did not foresee.
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=200 --fusion-report --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=SAME
// RUN: morf-opt %S/../../examples/tanh_bwd_bias.mlir --pipeline=gpu --size-hints M=65536,N=1024 --fusion-report --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=OTHER
// Flat partials (the bias gradient at N = 100) are priced with the schedule they run.
// RUN: morf-opt %S/../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=262144,N=100 --fusion-report --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=FLAT
// RUN: morf-opt %S/../../examples/tanh_bwd_bias.mlir --pipeline=fuse --size-hints M=65536,N=1024 --fusion-report 2>/dev/null | FileCheck %s --check-prefix=ATTR
// RUN: morf-opt %S/../../examples/tanh_bwd_bias.mlir --pipeline=fuse --size-hints M=65536,N=1024 | FileCheck %s --check-prefix=PLAIN

// SAME: priced schedule of rowfused.persistent[{{.*}}]: row_fused threads=256 threads_per_row=32 rows_per_cta=8 grid<=1056 vector=4 partials=shared fast=yes(N=200 vector=8 chunks=1)
// SAME: schedule: @layernorm_bwd_k0: row_fused threads=256 threads_per_row=32 rows_per_cta=8 grid<=1056 vector=4 partials=shared fast=yes(N=200 vector=8 chunks=1) (from the heuristic)
// SAME-NOT: the fusion model priced

// OTHER: priced schedule of fused[nest0 + partial(nest1, S={{[0-9]+}})]: row_fused threads=256 threads_per_row=32 rows_per_cta=8 grid<=924 vector=8 partials=shared fast=yes(N=1024 vector=8 chunks=4)
// OTHER: schedule: @tanh_bwd_bias_k0: row_fused threads=256 threads_per_row=32 rows_per_cta=8 grid<=264 vector=8 partials=shared staged_rows=2
// OTHER: note: @tanh_bwd_bias_k0: the fusion model priced this kernel with another schedule, row_fused threads=256 threads_per_row=32 rows_per_cta=8 grid<=924 {{.*}}: its cost in the fusion report is that schedule's

// FLAT: priced schedule of fused[nest0 + partial(nest1, S={{[0-9]+}})]: partial_pointwise threads=800 threads_per_row=1 rows_per_cta=1 grid<=1056 vector=8 partials=none fast=no
// FLAT: schedule: @gelu_bwd_bias_k0: partial_pointwise threads=800 threads_per_row=1 rows_per_cta=1 grid<=1056 vector=8 partials=none fast=no (from the heuristic)
// FLAT-NOT: the fusion model priced

// ATTR: morf.kernel = {kind = "pointwise", priced = "row_fused threads=256 threads_per_row=32 rows_per_cta=8 grid<=924 vector=8 partials=shared fast=yes(N=1024 vector=8 chunks=4)", split = {{[0-9]+}}}

// Without the report the attribute has no `priced`.
// PLAIN: morf.kernel = {kind = "pointwise", split = {{[0-9]+}}}
