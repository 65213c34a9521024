# Session 31, call 9: row_col_stats (reduction only, streamed) at odd rows, the half group
# (default) against the 16-byte group (packed-rows=8), `gpu` fusion options, alternating.
#   OUT=$OUT DEADLINE=100 bash docs/perf-data/2026-12-05/issue11-s31/call9.sh
DEADLINE=${DEADLINE:-100} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for i in 1 2; do
  bench_pipeline "rcs8m3-def-$i" examples/row_col_stats.mlir M=8388608,N=3 "partials=resident" "" --runs 100
  bench_pipeline "rcs8m3-r8-$i" examples/row_col_stats.mlir M=8388608,N=3 "partials=resident" "packed-rows=8" --runs 100
done
bench_pipeline "rcs4m5-def-1" examples/row_col_stats.mlir M=4194304,N=5 "partials=resident" "" --runs 100
bench_pipeline "rcs4m5-r8-1" examples/row_col_stats.mlir M=4194304,N=5 "partials=resident" "packed-rows=8" --runs 100
finish
