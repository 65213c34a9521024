# Session 30, call 8: the build with streamed packed rows by default (and the flush lanes and
# the packed-rows cost model) against 9d1b288 (.device-bin/old), untuned, at short rows.
#   OUT=$OUT DEADLINE=200 bash docs/perf-data/2026-12-05/issue11-s30/call8.sh
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r l e s r; do
  for i in $(seq 1 "$r"); do
    B=$B/old bench_text "$l-o$i" "examples/$e.mlir" "$s" gpu --runs 100
    bench_text "$l-n$i" "examples/$e.mlir" "$s" gpu --runs 100
  done
done <<LIST
rms8m2 rmsnorm_bwd M=8388608,N=2 2
ln8m2 layernorm_bwd M=8388608,N=2 2
rms4m4 rmsnorm_bwd M=4194304,N=4 1
ln4m4 layernorm_bwd M=4194304,N=4 1
smb8m2 softmax_bwd_colsum M=8388608,N=2 1
lsm8m1 logsoftmax_bwd_colsum M=8388608,N=1 1
two8m2 two_norms_shared_weight M=8388608,K=8388608,N=2 1
LIST
finish
