// The cost model prices a pointwise kernel with partials that the lowering runs as flat
// partials (a bias gradient over rows under 1024 bytes) as it runs: CTAs of whole warps where
// they fit (`flat_cta_threads`: 800 threads at N = 100, one a SM at their registers), a grid
// of at most one wave of them. Priced as the row form, gelu_bwd_bias at 262144 x 100 took a
// split of 1024 rows (256 CTAs of 200 threads, where 660 were resident); priced as CTAs of
// 200 threads (thirty-seventh to forty-third sessions), 256 rows (1024 splits, a full wave of
// 660); as CTAs of 800 threads, 1024 rows again (256 splits over a wave of 132 CTAs: fewer
// workspace rows for the final to read). Rows of 1024 bytes or more keep the row form's price
// (N = 1024: 256 rows).
// RUN: morf-opt %S/../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=262144,N=100 --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=N100
// RUN: morf-opt %S/../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=100003,N=100 --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=ODD
// RUN: morf-opt %S/../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=65536,N=1024 --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS

// N100: chosen plan: fused[nest0 + partial(nest1, S=1024)] ; final(nest1, S=1024)
// N100: fused[nest0 + partial(nest1, S=1024)]: {{.*}} 132 CTAs
// N100: priced schedule of fused[nest0 + partial(nest1, S=1024)]: partial_pointwise threads=800

// ODD: chosen plan: fused[nest0 + partial(nest1, S=512)]

// ROWS: chosen plan: fused[nest0 + partial(nest1, S=256)]
