# Issue 11, thirty-sixth session, call 6: the bias gradients at N = 100 (8-byte vectors):
# flat partials (the default) against the row form, which now takes 8 lanes a row
# (NARROW_ROW_LANE_BYTES), checked against fp64; the default's kernels timed one by one.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s36/call6.sh
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for ex in gelu_bwd_bias tanh_bwd_bias; do
  for m in 262144 327680; do
    ab_pipeline $ex-m$m examples/$ex.mlir M=$m,N=100 partials=resident "" "flat-partials=false" 1 --runs 100
  done
done
bench_pipeline gelu-pk examples/gelu_bwd_bias.mlir M=262144,N=100 partials=resident "" --runs 100 --per-kernel --no-check
grep -E "launch [0-9]|registers" "$OUT/logs/gelu-pk.txt" >> "$S"
finish
