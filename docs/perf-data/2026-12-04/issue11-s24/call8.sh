# Session 24, call 8: the committed build (6b2d66f). Rows in flight on the reduction-only
# kernels' short rows (the new lanes) and a lane per row (N = 2), untuned, checked; tunes of
# softmax_fwd_colsum at 65536 x 1024 (no cache entry since the twenty-third session) and of the
# read-only examples at N = 256 (what the tuner finds beyond the heuristic).
DEADLINE=400 . tools/scripts/device-call.sh
for s in M=1000000,N=256 M=131072,N=256 M=576000,N=384 M=8388608,N=2 M=65536,N=1024; do
  for e in row_col_stats colmax_rowsum; do
    for lo in "" "rows-in-flight=2"; do
      bench_pipeline rif-$e-${s//[=,]/_}-${lo:-default} examples/$e.mlir $s "" "$lo" --runs 100
    done
  done
done
tune softmax_fwd_colsum M=65536,N=1024 90 --max-trials 60
tune row_col_stats M=1000000,N=256 60 --max-trials 40
tune colmax_rowsum M=1000000,N=256 60 --max-trials 40
finish
