# Issue 11, thirty-seventh session, call 1: the cost model prices flat partials as they run
# (fusion/cost.rs `flat_partials_waves`), so the bias gradients' split fills a wave of them:
# main at 9e2979b (.device-bin/old) against the branch flat-partials-pricing, the `gpu`
# pipeline's options, checked; every shape below is one whose schedule the change moves
# (morf-opt --pipeline gpu over every example at 16 shapes). Then row_col_stats and
# colmax_rowsum at 5120 x 5120 (36% and 53% of the floor) under smaller grids and a final
# reduction in its own launch: do their column partials cost the time?
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s37/call1.sh
DEADLINE=${DEADLINE:-330} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for s in M=262144,N=100 M=100003,N=100 M=65536,N=200 M=131072,N=384 M=200000,N=64 M=8192,N=200; do
  for ex in gelu_bwd_bias tanh_bwd_bias; do
    ab_binaries $ex-${s//[=,]/_} examples/$ex.mlir $s partials=resident "" 1 --runs 100
  done
done
ab_binaries tanh_bwd_bias-M_1000000_N_32 examples/tanh_bwd_bias.mlir M=1000000,N=32 partials=resident "" 1 --runs 100
ab_binaries layernorm_bwd-M_65536_N_200 examples/layernorm_bwd.mlir M=65536,N=200 partials=resident "" 2 --runs 100
for ex in row_col_stats colmax_rowsum; do
  for lo in "" grid=132 grid=264 final=launch "grid=132 final=launch"; do
    bench_pipeline $ex-5120-${lo//[= ]/_} examples/$ex.mlir M=5120,N=5120 partials=resident "$lo" --runs 100
  done
done
bench_pipeline row_col_stats-pk examples/row_col_stats.mlir M=5120,N=5120 partials=resident "final=launch" --runs 100 --per-kernel --no-check
grep -E "launch [0-9]|registers" "$OUT/logs/row_col_stats-pk.txt" >> "$S"
finish
