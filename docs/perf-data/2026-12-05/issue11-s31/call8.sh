# Session 31, call 8: the build committed last (half groups, the 48-byte thread-row rule):
# compute-sanitizer of its new kernels at odd M, and the other programs at N = 3 and 5
# against .device-bin/old (99f9c32), untuned, alternating.
#   OUT=$OUT DEADLINE=170 bash docs/perf-data/2026-12-05/issue11-s31/call8.sh
DEADLINE=${DEADLINE:-170} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for t in "rmsnorm_bwd M=1003,N=10" "rmsnorm_bwd_f32 M=7,N=5" "layernorm_bwd M=1000003,N=3" "row_col_stats M=1003,N=5"; do
  set -- $t; l=san-$1-${2//[=,]/_}
  "$B/morf-opt" "examples/$1.mlir" --pipeline gpu --size-hints "M=8388608,${2#*,}" -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt"
  sanitize_module "$l" "$2"
done
while read -r l e s; do
  B=$B/old bench_text "$l-o1" "examples/$e.mlir" "$s" gpu --runs 100
  bench_text "$l-n1" "examples/$e.mlir" "$s" gpu --runs 100
done <<LIST
lnf8m3 layernorm_fwd M=8388608,N=3
rcs8m3 row_col_stats M=8388608,N=3
smb8m3 softmax_bwd_colsum M=8388608,N=3
rcs4m5 row_col_stats M=4194304,N=5
LIST
finish
