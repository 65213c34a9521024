# Issue 11, forty-first session, call 2: where short rows lose (fused, no cache). The survey of
# the fortieth session (its call 1) put the fused programs at 28-78% of the floor at 65536 x 200,
# 100003 x 100 and 32768 x 768, 10-14 us over a copy of the same bytes. Here: ncu of the
# backward norms' row kernel at 65536 x 200 (stall reasons, occupancy), `rows-in-flight=2`
# and a few CTA sizes against the heuristic, then the tuner (40 trials, its medians) on four
# short-row shapes, to see which knobs the heuristic misses.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s41/call2.sh
DEADLINE=${DEADLINE:-570} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ncu_profile ncu-rms200 examples/rmsnorm_bwd.mlir 'rmsnorm_bwd_k0' M=65536,N=200
ncu_profile ncu-ln100 examples/layernorm_bwd.mlir 'layernorm_bwd_k0' M=100003,N=100
for ex in rmsnorm_bwd layernorm_bwd; do
  for sz in M=65536,N=200 M=100003,N=100 M=32768,N=768; do
    l=$ex-${sz//[=,]/_}
    bench_pipeline "$l-base" "examples/$ex.mlir" "$sz" partials=resident "" --runs 100 --no-check
    bench_pipeline "$l-rif2" "examples/$ex.mlir" "$sz" partials=resident "rows-in-flight=2" --runs 100 --no-check
    bench_pipeline "$l-t128" "examples/$ex.mlir" "$sz" partials=resident "threads=128" --runs 100 --no-check
    bench_pipeline "$l-t512" "examples/$ex.mlir" "$sz" partials=resident "threads=512" --runs 100 --no-check
  done
done
tune rmsnorm_bwd M=65536,N=200 75 --max-trials 40
tune layernorm_bwd M=100003,N=100 75 --max-trials 40
tune colmax_rowsum M=65536,N=200 60 --max-trials 40
tune rmsnorm_bwd M=32768,N=768 75 --max-trials 40
finish
