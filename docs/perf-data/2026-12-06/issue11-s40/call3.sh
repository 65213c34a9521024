# Issue 11, fortieth session, call 3 (same build, the H200 of calls 1-2): the four unmet table
# rows untuned (the cost model's schedules, s39's model) against the committed cache, then
# morf-tune from the cached entry (--warm-start) on each, into a copy of the cache
# (returned as $OUT/h200.json).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s40/call3.sh
DEADLINE=${DEADLINE:-580} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for r in "rmsnorm_bwd M=65536,N=1024" "layernorm_bwd M=65536,N=1024" "layernorm_bwd M=32768,N=4096" "layernorm_bwd M=16384,N=8192"; do
  set -- $r
  bench_pipeline "model-$1-${2//[=,]/_}" "examples/$1.mlir" "$2" partials=resident "" --runs 100 --no-check
done
tune layernorm_bwd M=16384,N=8192 150 --warm-start --max-trials 40
tune layernorm_bwd M=32768,N=4096 130 --warm-start --max-trials 40
tune layernorm_bwd M=65536,N=1024 120 --warm-start --max-trials 40
tune rmsnorm_bwd M=65536,N=1024 120 --warm-start --max-trials 40
finish
