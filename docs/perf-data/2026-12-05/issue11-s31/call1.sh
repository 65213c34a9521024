# Session 31, call 1: a thread per odd short row (N = 3, 5, 6, 10, 12: vector = N) with
# multi-vector packed rows (R rows a multiple of 16 bytes, in 16-byte pieces) against the
# previous build (.device-bin/old = 99f9c32), untuned, alternating; Inductor default in the
# same call; compute-sanitizer of the new kernels at odd M.
#   OUT=$OUT DEADLINE=500 bash docs/perf-data/2026-12-05/issue11-s31/call1.sh
DEADLINE=${DEADLINE:-500} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r l e s r; do
  for i in $(seq 1 "$r"); do
    B=$B/old bench_text "$l-o$i" "examples/$e.mlir" "$s" gpu --runs 100
    bench_text "$l-n$i" "examples/$e.mlir" "$s" gpu --runs 100
  done
  grep -o 'fused.*kernel(s)' "$OUT/logs/$l-n1.txt" | head -1 | sed "s/^/  $l new: /" >> "$S"
done <<LIST
rms8m3 rmsnorm_bwd M=8388608,N=3 2
rms4m6 rmsnorm_bwd M=4194304,N=6 2
rms2m12 rmsnorm_bwd M=2097152,N=12 2
rms4m5 rmsnorm_bwd M=4194304,N=5 1
rms2m10 rmsnorm_bwd M=2097152,N=10 1
ln8m3 layernorm_bwd M=8388608,N=3 1
ln4m6 layernorm_bwd M=4194304,N=6 1
ln2m12 layernorm_bwd M=2097152,N=12 1
rmsf4m3 rmsnorm_bwd_f32 M=4194304,N=3 1
rmsf2m6 rmsnorm_bwd_f32 M=2097152,N=6 1
rcs8m3 row_col_stats M=8388608,N=3 1
rcs4m6 row_col_stats M=4194304,N=6 1
smb8m3 softmax_bwd_colsum M=8388608,N=3 1
lnf8m3 layernorm_fwd M=8388608,N=3 1
LIST
for s in M=7,N=3 M=1000003,N=3 M=1003,N=6 M=1003,N=12; do
  l=san-${s//[=,]/_}
  "$B/morf-opt" examples/rmsnorm_bwd.mlir --pipeline gpu --size-hints "M=8388608,${s#*,}" -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt"
  sanitize_module "$l" "$s"
done
echo "inductor:" >> "$S"
[ "$(left)" -gt 60 ] && ONLY_INDUCTOR=1 SHAPES=8388608x3:bf16,4194304x6:bf16,2097152x12:bf16 timeout $(( $(left) - 10 )) \
  python3 .device-bin/peers/anchors.py rms > "$OUT/logs/inductor-rms.txt" 2>&1
grep -E "copy bandwidth|of copy-floor" "$OUT/logs/inductor-rms.txt" >> "$S"
finish
