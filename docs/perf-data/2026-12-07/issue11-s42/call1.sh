# Issue 11, forty-second session, call 1: where short rows lose (fused, no cache); the
# forty-first session's call 2 as written, plus lanes a row. The fortieth session's survey put
# RMSNorm backward at 65536 x 200 at 38.0 us (48.9% of the floor; a copy of the same bytes 23.5):
# one row of 800 bytes in flight a warp, 24 warps an SM (76 registers, 3 CTAs of 256) is about
# 19 KB in flight an SM. Here: ncu of the row kernels at 65536 x 200 and 100003 x 100 (stall
# reasons, occupancy), rows-in-flight=2 (also under min-ctas=3), min-ctas=4, fewer lanes a row and three staged rows (several rows a warp)
# against the heuristic, then the tuner (40 trials) on two short-row shapes.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s42/call1.sh
DEADLINE=${DEADLINE:-570} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ncu_profile ncu-rms200 examples/rmsnorm_bwd.mlir 'rmsnorm_bwd_k0' M=65536,N=200
ncu_profile ncu-ln100 examples/layernorm_bwd.mlir 'layernorm_bwd_k0' M=100003,N=100
# The final reduction in its own launch, each launch timed on its own: the row phase's time.
bench_pipeline rms200-flaunch examples/rmsnorm_bwd.mlir M=65536,N=200 partials=resident "final=launch" --runs 100 --no-check --per-kernel
bench_pipeline ln100-flaunch examples/layernorm_bwd.mlir M=100003,N=100 partials=resident "final=launch" --runs 100 --no-check --per-kernel
for ex in rmsnorm_bwd layernorm_bwd; do
  for sz in M=65536,N=200 M=100003,N=100 M=32768,N=768; do
    l=$ex-${sz//[=,]/_}
    bench_pipeline "$l-base" "examples/$ex.mlir" "$sz" partials=resident "" --runs 100 --no-check
    bench_pipeline "$l-rif2" "examples/$ex.mlir" "$sz" partials=resident "rows-in-flight=2" --runs 100 --no-check
    bench_pipeline "$l-rif2mc3" "examples/$ex.mlir" "$sz" partials=resident "rows-in-flight=2 min-ctas=3" --runs 100 --no-check
    bench_pipeline "$l-mc4" "examples/$ex.mlir" "$sz" partials=resident "min-ctas=4" --runs 100 --no-check
    bench_pipeline "$l-tpr8" "examples/$ex.mlir" "$sz" partials=resident "threads-per-row=8" --runs 100 --no-check
    bench_pipeline "$l-tpr16" "examples/$ex.mlir" "$sz" partials=resident "threads-per-row=16" --runs 100 --no-check
    bench_pipeline "$l-st3" "examples/$ex.mlir" "$sz" partials=resident "staged-rows=3" --runs 100 --no-check
  done
done
tune rmsnorm_bwd M=65536,N=200 75 --max-trials 40
tune layernorm_bwd M=100003,N=100 75 --max-trials 40
finish
