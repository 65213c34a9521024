// The cost model prices a pointwise kernel with partials that the lowering runs as flat
// partials (a bias gradient over rows under 1024 bytes) as it runs: CTAs of N x c threads, as
// many a SM as their registers leave resident, a grid of at most one wave of them. Priced as
// the row form, gelu_bwd_bias at 262144 x 100 took a split of 1024 rows (256 CTAs of 200
// threads, where 660 are resident); now 256 rows (1024 splits, the grid a full wave). Rows of
// 1024 bytes or more keep the row form's price (N = 1024: 256 rows).
// RUN: morf-opt %S/../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=262144,N=100 --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=N100
// RUN: morf-opt %S/../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=100003,N=100 --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=ODD
// RUN: morf-opt %S/../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=65536,N=1024 --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS

// N100: chosen plan: fused[nest0 + partial(nest1, S=256)] ; final(nest1, S=256)
// N100: fused[nest0 + partial(nest1, S=256)]: {{.*}} 660 CTAs

// ODD: chosen plan: fused[nest0 + partial(nest1, S=128)]

// ROWS: chosen plan: fused[nest0 + partial(nest1, S=256)]
