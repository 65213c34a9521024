# Issue 11, fortieth session, call 2 (the same build as call 1; an H200, the first since the
# twenty-second session): the table rows with the committed cache (RMSNorm and LayerNorm
# backward at the five bf16 shapes, unchecked, 100 calls), then Inductor's default in the
# same call, then the table rows once more.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s40/call2.sh
DEADLINE=${DEADLINE:-570} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
table_with_inductor
mkdir -p "$OUT/json2" "$OUT/logs2"
for ex in rmsnorm_bwd layernorm_bwd; do
  timeout 90 "$B/morf-bench" "examples/$ex.mlir" --tuning-cache "$C" --no-check --runs 100 --warmup 10 \
    --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=4096,N=16384 \
    > "$OUT/logs/table2-$ex.txt" 2> "$OUT/logs/table2-$ex.log"
  echo "== round 2 $ex rc=$? $(grep -o 'copy: .*' "$OUT/logs/table2-$ex.log" | head -1)" >> "$S"
  grep -E '^\| [0-9]' "$OUT/logs/table2-$ex.txt" >> "$S"
done
finish
