# Session 24, call 6: short rows (N <= 384, a 16-byte vector or less per lane of a warp per
# row): lanes per row and rows in flight, untuned, unchecked (every configuration is in the
# tested space), on the read-only examples and the backward norms.
DEADLINE=560 . tools/scripts/device-call.sh
for s in M=131072,N=256 M=1000000,N=256 M=576000,N=384 M=8388608,N=2; do
  for e in row_col_stats colmax_rowsum rmsnorm_bwd layernorm_bwd; do
    for lo in "" "threads-per-row=16" "threads-per-row=8" "threads-per-row=4" "rows-in-flight=2"; do
      [ $s = M=8388608,N=2 ] && [ -n "$lo" ] && [ "$lo" != "rows-in-flight=2" ] && continue
      l=sr-$e-${s//[=,]/_}-${lo//[=-]/}
      bench_pipeline "$l" examples/$e.mlir $s "" "$lo" --runs 100 --no-check
    done
  done
done
finish
