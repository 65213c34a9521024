# Issue 11, thirty-sixth session, call 1: the norms' backward at mid-length rows outside the
# table (the heuristic's schedules: --tuning-cache none), checked against fp64, and Inductor's
# default at the same shapes in the same call (anchors.py, ONLY_INDUCTOR=1).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s36/call1.sh
DEADLINE=${DEADLINE:-540} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
SH="32768x768 33791x768 65536x640 65536x1536 32768x2048 24576x2560 16384x3072 16384x5120 8192x12288 100000x1000 262144x100"
args=(); for s in $SH; do args+=(--sizes "M=${s%x*},N=${s#*x}"); done
for ex in rmsnorm_bwd layernorm_bwd; do
  timeout 200 "$B/morf-bench" examples/$ex.mlir --tuning-cache none --runs 100 --warmup 10 "${args[@]}" \
    --json "$OUT/json/mid-$ex.json" > "$OUT/logs/mid-$ex.txt" 2> "$OUT/logs/mid-$ex.log"
  echo "== $ex rc=$? t=$(( $(date +%s) - T0 )) $(grep -o 'copy: .*' "$OUT/logs/mid-$ex.log" | head -1)" >> "$S"
  grep -E '^\| [0-9]' "$OUT/logs/mid-$ex.txt" >> "$S"
  grep -E 'rel_err' "$OUT/logs/mid-$ex.log" | grep -v ' ok' >> "$S"
done
sh=$(for s in $SH; do printf "%s:bf16," "$s"; done); sh=${sh%,}
for op in rms ln; do
  [ "$(left)" -lt 120 ] && { echo "peers $op: skipped (deadline)" >> "$S"; continue; }
  (cd "$B/peers" && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=$sh timeout 150 python3 anchors.py $op) > "$OUT/logs/peers-$op.txt" 2>&1
  echo "== Inductor default $op rc=$? t=$(( $(date +%s) - T0 ))" >> "$S"
  grep -E "copy bandwidth|inductor_mix" "$OUT/logs/peers-$op.txt" | grep -v kernels >> "$S"
done
finish
