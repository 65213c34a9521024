# Issue 11, fortieth session, call 4 (same build and H200): morf-tune again on the four unmet
# table rows, from call 3's cache (.device-bin/h200-s40c3.json), one round (the helper's), up to 100 trials.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s40/call4.sh
DEADLINE=${DEADLINE:-585} . tools/scripts/device-call.sh
cp "$B/h200-s40c3.json" "$C"
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
tune layernorm_bwd M=16384,N=8192 150 --warm-start --max-trials 100
tune layernorm_bwd M=32768,N=4096 150 --warm-start --max-trials 100
tune layernorm_bwd M=65536,N=1024 130 --warm-start --max-trials 100
tune rmsnorm_bwd M=65536,N=1024 130 --warm-start --max-trials 100
finish
