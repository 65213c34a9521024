# Session 24, call 4: the compiler's streamed loads (stream-loads, this session's build).
# A/B in one binary (untuned, stream-loads=false against the default), the committed cache
# with the new default, then short tunes of the read-only examples (warm start, new knob).
DEADLINE=560 . tools/scripts/device-call.sh
R=docs/perf-data/2026-12-04/issue11-s23/programs/rowsum.mlir
M=M=65536,N=1024; B3=B=64,M=1024,N=1024
for r in 1 2; do
  for v in off auto; do
    lo=""; [ $v = off ] && lo="stream-loads=false"
    bench_pipeline ab$r-rowsum-$v $R $M "" "$lo" --runs 100
    bench_pipeline ab$r-colmax_rowsum-$v examples/colmax_rowsum.mlir $M "" "$lo" --runs 100
    bench_pipeline ab$r-row_col_stats-$v examples/row_col_stats.mlir $M "" "$lo" --runs 100
    bench_pipeline ab$r-reduce3d-$v examples/reduce3d.mlir $B3 "" "$lo" --runs 100
  done
done
bench_cache cache-colmax_rowsum examples/colmax_rowsum.mlir $M --runs 100
bench_cache cache-row_col_stats examples/row_col_stats.mlir $M --runs 100
bench_cache cache-reduce3d examples/reduce3d.mlir $B3 --runs 100
bench_cache cache-logsoftmax-unfused examples/logsoftmax_bwd_colsum.mlir $M --runs 100 --unfused
tune colmax_rowsum $M 110 --warm-start --max-trials 40
tune row_col_stats $M 110 --warm-start --max-trials 40
tune reduce3d $B3 110 --warm-start --max-trials 40
finish
