# Issue 11, thirty-seventh session, call 2: row_col_stats at 5120 x 5120 runs 160 CTAs (the
# plan's split of 32 rows is the least `partials=resident` takes) at 36% of the floor. Does a
# cluster of CTAs per row (each CTA half or a quarter of the columns: twice or four times the
# CTAs for the same workspace), more partials, or fewer staged rows move it? The same for
# colmax_rowsum and RMSNorm backward at 5120 x 5120, and row_col_stats at 16384 x 5120; ncu of
# the row kernel (its final reduction in its own launch).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s37/call2.sh
DEADLINE=${DEADLINE:-330} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for lo in "" cluster=2 cluster=4 staged-rows=2 staged-rows=3; do
  bench_pipeline rcs5120-${lo//[= ]/_} examples/row_col_stats.mlir M=5120,N=5120 partials=resident "$lo" --runs 100
done
for fo in partials=264 partials=528; do
  bench_pipeline rcs5120-$fo examples/row_col_stats.mlir M=5120,N=5120 $fo "" --runs 100
done
for lo in "" cluster=2; do
  bench_pipeline rcs16k-${lo//[= ]/_} examples/row_col_stats.mlir M=16384,N=5120 partials=resident "$lo" --runs 100
  bench_pipeline cmr5120-${lo//[= ]/_} examples/colmax_rowsum.mlir M=5120,N=5120 partials=resident "$lo" --runs 100
  bench_pipeline rms5120-${lo//[= ]/_} examples/rmsnorm_bwd.mlir M=5120,N=5120 partials=resident "$lo" --runs 100
done
ncu_profile rcs5120 examples/row_col_stats.mlir row_col_stats_k0 M=5120,N=5120 \
  "$(pipeline partials=resident final=launch)"
finish
