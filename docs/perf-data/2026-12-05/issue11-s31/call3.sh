# Session 31, call 3: rows a thread packs beyond the fewest whose bytes are a multiple of 16
# (`packed-rows=R` may now ask more, up to 128 bytes a row input: 8 rows of 4 bytes are two
# 16-byte pieces). RMSNorm and LayerNorm backward, untuned, the default against asked R,
# alternating, two rounds.
#   OUT=$OUT DEADLINE=420 bash docs/perf-data/2026-12-05/issue11-s31/call3.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r l e s rs; do
  for i in 1 2; do
    bench_pipeline "$l-def-$i" "examples/$e.mlir" "$s" "" "" --runs 100
    for r in $rs; do
      bench_pipeline "$l-r$r-$i" "examples/$e.mlir" "$s" "" "packed-rows=$r" --runs 100
    done
  done
done <<LIST
rms8m2 rmsnorm_bwd M=8388608,N=2 8
ln8m2 layernorm_bwd M=8388608,N=2 8
rms8m3 rmsnorm_bwd M=8388608,N=3 4
rms4m6 rmsnorm_bwd M=4194304,N=6 8
rms2m12 rmsnorm_bwd M=2097152,N=12 4
ln2m12 layernorm_bwd M=2097152,N=12 4
rms2m8 rmsnorm_bwd M=2097152,N=8 2 4
rms4m4 rmsnorm_bwd M=4194304,N=4 8
LIST
finish
