# Session 24, call 9: two rows in flight for a lane per row of a reduction-only kernel (the
# new default against rows-in-flight=1), untuned, checked; the cache's new entries.
DEADLINE=300 . tools/scripts/device-call.sh
for s in M=8388608,N=2 M=4194304,N=4 M=2097152,N=8 M=1000003,N=2; do
  for e in row_col_stats colmax_rowsum; do
    for lo in "rows-in-flight=1" ""; do
      bench_pipeline lane-$e-${s//[=,]/_}-${lo:-new} examples/$e.mlir $s "" "$lo" --runs 100
    done
  done
done
for lo in "rows-in-flight=1" ""; do
  bench_pipeline lane-reduce3d-B_4096_M_2048_N_2-${lo:-new} examples/reduce3d.mlir B=4096,M=2048,N=2 "" "$lo" --runs 100
done
bench_cache cache-softmax_fwd_colsum examples/softmax_fwd_colsum.mlir M=65536,N=1024 --runs 100
bench_cache cache-row_col_stats-1M examples/row_col_stats.mlir M=1000000,N=256 --runs 100
bench_cache cache-colmax_rowsum-1M examples/colmax_rowsum.mlir M=1000000,N=256 --runs 100
finish
