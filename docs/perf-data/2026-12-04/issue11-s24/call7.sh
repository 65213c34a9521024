# Session 24, call 7: the short-row rule for reduction-only kernels of one row input (fewer
# lanes a row, SHORT_ROW_LANE_BYTES), the new default against threads-per-row=32 (the old
# default) in this session's build, untuned, checked; then the cache on the examples whose
# default changed at 65536 x 1024 (none should).
DEADLINE=500 . tools/scripts/device-call.sh
for s in M=1000000,N=256 M=131072,N=256 M=576000,N=384 M=65536,N=512 M=262144,N=512 M=33791,N=384; do
  for e in row_col_stats colmax_rowsum; do
    for lo in "threads-per-row=32" ""; do
      bench_pipeline sr7-$e-${s//[=,]/_}-${lo:-new} examples/$e.mlir $s "" "$lo" --runs 100
    done
  done
done
for s in B=1024,M=1024,N=256 B=4,M=100000,N=384; do
  for lo in "threads-per-row=32" ""; do
    bench_pipeline sr7-reduce3d-${s//[=,]/_}-${lo:-new} examples/reduce3d.mlir $s "" "$lo" --runs 100
  done
done
finish
