# Session 31, call 5: fewer rows than the default group (narrower pieces), after call 4 found
# packed-rows=4 faster than the default 8 at N = 3. As call 4 otherwise. (Call 4's header:)
# call 3 again with the `gpu` pipeline's fusion options (partials=resident; call 3 ran fuse-mixed-reductions's own default, partials=0): rows a thread packs beyond the fewest whose bytes are a multiple of 16
# (`packed-rows=R` may now ask more, up to 128 bytes a row input: 8 rows of 4 bytes are two
# 16-byte pieces). RMSNorm and LayerNorm backward, untuned, the default against asked R,
# alternating, two rounds.
#   OUT=$OUT DEADLINE=420 bash docs/perf-data/2026-12-05/issue11-s31/call5.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r l e s rs; do
  for i in 1 2; do
    bench_pipeline "$l-def-$i" "examples/$e.mlir" "$s" "partials=resident" "" --runs 100
    for r in $rs; do
      bench_pipeline "$l-r$r-$i" "examples/$e.mlir" "$s" "partials=resident" "packed-rows=$r" --runs 100
    done
  done
done <<LIST
rms8m3 rmsnorm_bwd M=8388608,N=3 4 2
ln8m3 layernorm_bwd M=8388608,N=3 4
rms4m6 rmsnorm_bwd M=4194304,N=6 2
ln4m6 layernorm_bwd M=4194304,N=6 2
rms2m12 rmsnorm_bwd M=2097152,N=12 1
LIST
finish
