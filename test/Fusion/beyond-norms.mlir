// Mixed-order programs other than norms (examples/): an activation backward beside a bias
// gradient, softmax backward with a column sum of its result, and row and column statistics
// (max/min outer reductions included) of one matrix.
// RUN: morf-opt %S/../../examples/tanh_bwd_bias.mlir --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=576000,N=384' | FileCheck %s --check-prefix=TANH
// RUN: morf-opt %S/../../examples/softmax_bwd_colsum.mlir --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=576000,N=384' | FileCheck %s --check-prefix=SOFTMAX
// RUN: morf-opt %S/../../examples/row_col_stats.mlir --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=576000,N=384' | FileCheck %s --check-prefix=STATS

// No row reduction: db's partials join the pointwise dx kernel (one pass over dy).
// TANH-LABEL: func.func @tanh_bwd_bias
// TANH:         %[[WS:workspace]] = mloop.alloc
// TANH:         mloop.parallel (%[[I:.*]], %[[J:.*]]) =
// TANH:           mloop.tanh
// TANH:           mloop.store %{{.*}}[%[[I]], %[[J]]]
// TANH:           mloop.accumulate sum %{{.*}}, %[[WS]][%{{.*}}, %[[J]]]
// TANH:         } attributes {morf.kernel = {kind = "pointwise", split = {{[0-9]+}}}}
// TANH:         } attributes {morf.kernel = {kind = "final", split = {{[0-9]+}}}}

// The column sum reads dx, which the row kernel has just computed: the partial uses the
// value, not a reload.
// SOFTMAX-LABEL: func.func @softmax_bwd_colsum
// SOFTMAX:         mloop.parallel (%[[I:.*]]) =
// SOFTMAX:           %[[S:.*]] = mloop.reduce sum
// SOFTMAX:           mloop.parallel (%[[J:.*]]) =
// SOFTMAX:             mloop.sub %{{.*}}, %[[S]] : f32
// SOFTMAX:             %[[DX:.*]] = mloop.mul
// SOFTMAX:             mloop.store %[[DX]], %{{.*}}[%[[I]], %[[J]]]
// SOFTMAX-NOT:         mloop.load
// SOFTMAX:             mloop.accumulate sum %[[DX]],
// SOFTMAX:         } attributes {morf.kernel = {kind = "row-fused", split = {{[0-9]+}}, style = "persistent"}}
// SOFTMAX:         } attributes {morf.kernel = {kind = "final", split = {{[0-9]+}}}}

// Two row reductions (mean, max) and two column partials (sum, max) in one kernel; the max
// workspace starts at -inf.
// STATS-LABEL: func.func @row_col_stats
// STATS:         %[[NINF:.*]] = mloop.constant 0xFF800000 : f32
// STATS:         mloop.fill %{{.*}}, %[[WSUM:workspace[_0-9]*]]
// STATS:         mloop.fill %[[NINF]], %[[WMAX:workspace[_0-9]*]]
// STATS:         mloop.parallel (%[[I:.*]]) =
// STATS:           mloop.reduce sum
// STATS:           mloop.reduce max
// STATS:           mloop.parallel (%[[J:.*]]) =
// STATS:             mloop.accumulate sum %{{.*}}, %[[WSUM]][%{{.*}}, %[[J]]]
// STATS:             mloop.accumulate max %{{.*}}, %[[WMAX]][%{{.*}}, %[[J]]]
// STATS:         } attributes {morf.kernel = {kind = "row-fused", split = {{[0-9]+}}, style = "persistent"}}
// STATS:           mloop.reduce sum
// STATS:           mloop.reduce max
// STATS:         } attributes {morf.kernel = {kind = "final", split = {{[0-9]+}}}}
