# Session 31, call 2: after call 1, per-row scalar stores of packed rows go out as one vector
# a group (mean/rstd of LayerNorm forward), and a thread takes an odd short row only where its
# packed group is at most 3 pieces of 16 bytes or the lanes would load 2-byte elements. This
# build against .device-bin/old (99f9c32), untuned, alternating; Inductor default in the same
# call; compute-sanitizer of the new kernels at odd M.
#   OUT=$OUT DEADLINE=520 bash docs/perf-data/2026-12-05/issue11-s31/call2.sh
DEADLINE=${DEADLINE:-520} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r l e s r; do
  for i in $(seq 1 "$r"); do
    B=$B/old bench_text "$l-o$i" "examples/$e.mlir" "$s" gpu --runs 100
    bench_text "$l-n$i" "examples/$e.mlir" "$s" gpu --runs 100
  done
done <<LIST
rms8m3 rmsnorm_bwd M=8388608,N=3 2
rms4m6 rmsnorm_bwd M=4194304,N=6 1
rms2m12 rmsnorm_bwd M=2097152,N=12 1
rms4m5 rmsnorm_bwd M=4194304,N=5 1
rms4m7 rmsnorm_bwd M=4194304,N=7 1
rms2m10 rmsnorm_bwd M=2097152,N=10 1
ln8m3 layernorm_bwd M=8388608,N=3 1
ln4m6 layernorm_bwd M=4194304,N=6 1
ln2m12 layernorm_bwd M=2097152,N=12 1
rmsf4m3 rmsnorm_bwd_f32 M=4194304,N=3 1
rcs8m3 row_col_stats M=8388608,N=3 2
rcs4m6 row_col_stats M=4194304,N=6 1
smb8m3 softmax_bwd_colsum M=8388608,N=3 1
lnf8m3 layernorm_fwd M=8388608,N=3 2
lnf8m2 layernorm_fwd M=8388608,N=2 2
rmf8m2 rmsnorm_fwd M=8388608,N=2 1
rmf8m3 rmsnorm_fwd M=8388608,N=3 1
LIST
for t in "layernorm_fwd M=1000003,N=3" "row_col_stats M=1003,N=3" "rmsnorm_bwd M=7,N=5" "layernorm_fwd M=1003,N=2"; do
  set -- $t; l=san-$1-${2//[=,]/_}
  "$B/morf-opt" "examples/$1.mlir" --pipeline gpu --size-hints "M=8388608,${2#*,}" -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt"
  sanitize_module "$l" "$2"
done
echo "inductor:" >> "$S"
for op in rms ln; do
  [ "$(left)" -gt 60 ] && ONLY_INDUCTOR=1 SHAPES=8388608x3:bf16,4194304x6:bf16,2097152x12:bf16 timeout $(( $(left) - 10 )) \
    python3 .device-bin/peers/anchors.py $op > "$OUT/logs/inductor-$op.txt" 2>&1
  grep -E "copy bandwidth|of copy-floor" "$OUT/logs/inductor-$op.txt" >> "$S"
done
finish
