# Issue 11, thirty-fifth session, call 8: the table rows with this session's final build and
# the committed cache (their kernels' PTX is unchanged by the session: ptx_sweep --compare),
# Inductor's default in the same call (anchors.py, ONLY_INDUCTOR=1), on whatever GPU came.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s35/call8.sh
DEADLINE=${DEADLINE:-330} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for ex in rmsnorm_bwd layernorm_bwd; do
  timeout 90 "$B/morf-bench" examples/$ex.mlir --tuning-cache "$C" --no-check --runs 100 --warmup 10 \
    --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=4096,N=16384 \
    --json "$OUT/json/table-$ex.json" > "$OUT/logs/table-$ex.txt" 2> "$OUT/logs/table-$ex.log"
  echo "== $ex rc=$? t=$(( $(date +%s) - T0 )) $(grep -o 'copy: .*' "$OUT/logs/table-$ex.log" | head -1)" >> "$S"
  grep -E '^\| [0-9]' "$OUT/logs/table-$ex.txt" >> "$S"
done
for op in rms ln; do
  [ "$(left)" -lt 110 ] && { echo "peers $op: skipped (deadline)" >> "$S"; continue; }
  sh=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16,4096x16384:bf16
  (cd "$B/peers" && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=$sh timeout 110 python3 anchors.py $op) > "$OUT/logs/peers-$op.txt" 2>&1
  echo "== Inductor default $op rc=$? t=$(( $(date +%s) - T0 ))" >> "$S"
  grep -E "copy bandwidth|inductor_mix" "$OUT/logs/peers-$op.txt" | grep -v kernels >> "$S"
done
finish
