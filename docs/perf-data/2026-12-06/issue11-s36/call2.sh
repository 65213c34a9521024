# Issue 11, thirty-sixth session, call 2: the schedule knobs at the shapes call 1 found under
# 80% or behind Inductor (N = 100, 640, 768, 2560, 5120), no cache, checked against fp64.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s36/call2.sh
DEADLINE=${DEADLINE:-560} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
sweep() { # label example sizes fuse-opts variants...
  local l=$1 ex=$2 sz=$3 fo=$4 i=0 v; shift 4
  for v in "$@"; do
    i=$((i + 1)); bench_pipeline "$l-$i" "examples/$ex.mlir" "$sz" "$fo" "$v" --runs 100
  done
}
for ex in rmsnorm_bwd layernorm_bwd; do
  sweep $ex-n100 $ex M=262144,N=100 "" "" "threads-per-row=16" "threads-per-row=8" "threads-per-row=4" \
    "threads-per-row=8 rows-in-flight=2" "threads-per-row=16 rows-in-flight=2" ""
done
for ex in rmsnorm_bwd layernorm_bwd; do
  sweep $ex-n5120 $ex M=16384,N=5120 "" "" "threads=512" "staged-rows=2" \
    "min-ctas=2 remat-converts=true chunk-major=true staged-rows=1" \
    "min-ctas=2 remat-converts=true chunk-major=true staged-rows=2" ""
  sweep $ex-n5120r $ex M=16384,N=5120 "partials=resident splits=32" "interleave-splits=true min-ctas=2 remat-converts=true chunk-major=true staged-rows=1"
done
for ex in rmsnorm_bwd layernorm_bwd; do
  sweep $ex-n640 $ex M=65536,N=640 "" "" "threads-per-row=16" "rows-in-flight=2" "staged-rows=2" \
    "rows-in-flight=1 staged-rows=1" "min-ctas=2 remat-converts=true chunk-major=true rows-in-flight=1 staged-rows=1" ""
  sweep $ex-n768 $ex M=32768,N=768 "" "" "threads-per-row=16" "rows-in-flight=2" "staged-rows=2" "rows-in-flight=1 staged-rows=1" ""
done
sweep rmsnorm_bwd-n2560 rmsnorm_bwd M=24576,N=2560 "" "" "threads=512" "staged-rows=2" \
  "min-ctas=2 remat-converts=true chunk-major=true staged-rows=1" ""
sweep layernorm_bwd-n2560 layernorm_bwd M=24576,N=2560 "" ""
finish
