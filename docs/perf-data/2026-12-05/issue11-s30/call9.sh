# Session 30, call 9: short rows that packed rows do not take (a row of 6, 12 or 24 bytes is
# not a divisor of 16 bytes): RMSNorm backward untuned at N = 3, 6, 12, for the record of
# what is not built.
#   OUT=$OUT DEADLINE=120 bash docs/perf-data/2026-12-05/issue11-s30/call9.sh
DEADLINE=${DEADLINE:-120} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for s in M=8388608,N=3 M=4194304,N=6 M=2097152,N=12; do
  bench_text "rms-${s//[=,]/_}" examples/rmsnorm_bwd.mlir "$s" gpu --runs 100
  grep -o 'fused.*kernel(s)' "$OUT/logs/rms-${s//[=,]/_}.txt" | head -1 | sed "s/^/  /" >> "$S"
done
finish
