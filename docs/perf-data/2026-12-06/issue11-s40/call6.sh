# Issue 11, fortieth session, call 6 (same build and H200): morf-tune from call 4's cache
# (.device-bin/h200-s40c4.json) on the 4096 x 16384 rows (>= 85% wanted), 100 trials at most.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s40/call6.sh
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
cp "$B/h200-s40c4.json" "$C"
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
tune layernorm_bwd M=4096,N=16384 170 --warm-start --max-trials 100
tune rmsnorm_bwd M=4096,N=16384 170 --warm-start --max-trials 100
finish
