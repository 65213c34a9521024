# Session 30, call 6: the cost model now prices packed rows (a split takes `packed` times
# fewer steps, each with `packed` times the bytes in flight): at N = 1 it fuses the softmax
# column sums it left unfused (softmax_bwd_colsum at 8388608 x 1: predicted 67.8 us for the
# unfused plan before, 32.4 fused now). Old binaries (9d1b288, .device-bin/old) against new
# (the flush lanes and the model change), untuned.
#   OUT=$OUT DEADLINE=200 bash docs/perf-data/2026-12-05/issue11-s30/call6.sh
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for e in softmax_bwd_colsum softmax_fwd_colsum logsoftmax_bwd_colsum; do
  for b in old new; do
    bb=$B; [ $b = old ] && bb=$B/old
    B=$bb bench_text "$e-N1-$b" "examples/$e.mlir" M=8388608,N=1 gpu --runs 100
    grep -o 'fused.*kernel(s)' "$OUT/logs/$e-N1-$b.txt" | head -1 | sed "s/^/  /" >> "$S"
  done
done
finish
