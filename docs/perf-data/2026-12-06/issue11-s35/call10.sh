# Issue 11, thirty-fifth session, call 10: the f32 norms' CTA per row at N = 16384 (the reload
# form with shared accumulators, 512 threads: LayerNorm's kernel spills 100 bytes at ptxas'
# cap of 128 registers) against 256 threads (80 registers, no spill), alternating, two rounds;
# checked once.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s35/call10.sh
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
F=partials=resident
for ex in layernorm_bwd_f32 rmsnorm_bwd_f32; do
  ab_pipeline "$ex-4k" examples/$ex.mlir M=4096,N=16384 "$F" "" "threads=256" 2 --runs 100 --no-check
  ab_pipeline "$ex-2k" examples/$ex.mlir M=2048,N=16384 "$F" "" "threads=256" 1 --runs 100 --no-check
  bench_pipeline "$ex-4k-check256" examples/$ex.mlir M=4096,N=16384 "$F" "threads=256" --runs 20
done
finish
