# Session 31, call 6: the build whose default packs half the rows (8-byte pieces) for odd rows
# (after call 5), against packed-rows=R of the 16-byte group, with the `gpu` pipeline's fusion
# options, untuned, alternating, two rounds.
#   OUT=$OUT DEADLINE=240 bash docs/perf-data/2026-12-05/issue11-s31/call6.sh
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
rms8m3 rmsnorm_bwd M=8388608,N=3 8
ln8m3 layernorm_bwd M=8388608,N=3 8
rms4m6 rmsnorm_bwd M=4194304,N=6 4
rms4m5 rmsnorm_bwd M=4194304,N=5 8
rmsf4m3 rmsnorm_bwd_f32 M=4194304,N=3 4
LIST
finish
