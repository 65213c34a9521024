# Issue 11, thirty-fifth session, call 9: the packed rows' model moved the planned CTAs a SM
# of LayerNorm backward at 8388608 x 2 (bf16 2 -> 3, f32 4 -> 3); the old bounds through
# min-ctas against the new default, alternating, two rounds; checked once.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s35/call9.sh
DEADLINE=${DEADLINE:-150} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
F=partials=resident
ab_pipeline ln2 examples/layernorm_bwd.mlir M=8388608,N=2 "$F" "min-ctas=2" "" 2 --runs 100 --no-check
ab_pipeline ln2f32 examples/layernorm_bwd_f32.mlir M=8388608,N=2 "$F" "min-ctas=4" "" 2 --runs 100 --no-check
bench_pipeline ln2-check examples/layernorm_bwd.mlir M=8388608,N=2 "$F" "" --runs 20
bench_pipeline ln2f32-check examples/layernorm_bwd_f32.mlir M=8388608,N=2 "$F" "" --runs 20
finish
