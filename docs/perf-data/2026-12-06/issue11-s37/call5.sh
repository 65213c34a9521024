# Issue 11, thirty-seventh session, call 5: the flat-partials pricing (084423e) on shapes of
# no earlier run, whose schedule it moves (9e2979b in .device-bin/old against this build, the
# `gpu` pipeline's options, checked), then, on an H200 only, the table rows with the committed
# cache and Inductor's default in the same call (as s35 call 8).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s37/call5.sh
DEADLINE=${DEADLINE:-450} . tools/scripts/device-call.sh
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "device $dev" >> "$S"
while read -r ex s; do
  ab_binaries $ex-${s//[=,]/_} examples/$ex.mlir $s partials=resident "" 1 --runs 100
done <<'LIST'
gelu_bwd_bias M=200000,N=120
tanh_bwd_bias M=200000,N=120
gelu_bwd_bias M=400000,N=72
tanh_bwd_bias M=400000,N=72
tanh_bwd_bias M=65536,N=500
tanh_bwd_bias M=131072,N=250
LIST
case "$dev" in *H200*) ;; *) echo "table: skipped (not an H200)" >> "$S"; finish; exit 0 ;; esac
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
