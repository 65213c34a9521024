// Splits under 64 rows are also tried at exactly one wave of two programs per SM
// (ceil(M / (2 x SMs)); fusion/analysis.rs `split_candidates`). row_col_stats at 5120 x 5120
// took S = 32 among the powers of two: 160 CTAs where two a SM (264) fit, S = 16 being two
// rounds; S = 20 fills the wave (256 CTAs; measured on an H100 47.4 -> 39.0 us, docs/perf.md,
// thirty-seventh session); 10000 rows take S = 38 (264 CTAs). Longer splits keep the powers
// of two: at 65536 rows the exact split would be 249 (LayerNorm backward at 65536 x 200 keeps
// its row kernel's partials, which the exact split had traded for a standalone split-K partial
// that ran 60% slower).
// RUN: morf-opt %S/../../examples/row_col_stats.mlir --pipeline=gpu --size-hints M=5120,N=5120 --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=200 --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=LONG
// A split that leaves a kernel with partials under three quarters of a wave is said in the
// report (S = 32 forced: 160 of the 264 CTAs that fit).
// RUN: morf-opt %S/../../examples/row_col_stats.mlir --pass-pipeline "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident splits=32 report=true})" --size-hints M=5120,N=5120 -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNDER
// RUN: morf-opt %S/../../examples/layernorm_bwd_f32.mlir --pipeline=gpu --size-hints M=10000,N=2000 --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=TENK

// SHORT: chosen plan: rowfused.persistent[nest0 + nest1 + partial(nest2, S=20) + partial(nest3, S=20)]
// SHORT: - rowfused.persistent[nest0 + nest1 + partial(nest2, S=20) + partial(nest3, S=20)]: {{.*}} 256 CTAs

// LONG: chosen plan: rowfused.persistent[nest0 + nest1 + nest2 + partial(nest3, S=64) + partial(nest4, S=64)]
// LONG-NOT: S=249

// TENK: chosen plan: {{.*}}partial(nest3, S=38) + partial(nest4, S=38)]

// UNDER: - rowfused.persistent[nest0 + nest1 + partial(nest2, S=32) + partial(nest3, S=32)]: {{.*}} 160 CTAs, {{.*}}, 0.61 of a wave (160 of the 264 CTAs that fit)
// UNDER-NOT: fused[final(nest2, S=32) + final(nest3, S=32)]: {{.*}} of a wave
