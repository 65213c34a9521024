# Session 31, call 7: the thread-row rule by the default group's bytes (at most 48; after call
# 6's 8-byte pieces took N = 5 from 94.0 to 67.9 us): N = 10 bf16 and N = 5 f32 (groups of 40
# bytes) now take a thread. This build against .device-bin/old (99f9c32, lanes), untuned,
# alternating, two rounds.
#   OUT=$OUT DEADLINE=200 bash docs/perf-data/2026-12-05/issue11-s31/call7.sh
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r l e s r; do
  for i in $(seq 1 "$r"); do
    B=$B/old bench_text "$l-o$i" "examples/$e.mlir" "$s" gpu --runs 100
    bench_text "$l-n$i" "examples/$e.mlir" "$s" gpu --runs 100
  done
done <<LIST
rms2m10 rmsnorm_bwd M=2097152,N=10 2
ln2m10 layernorm_bwd M=2097152,N=10 2
rmsf4m5 rmsnorm_bwd_f32 M=4194304,N=5 2
LIST
finish
