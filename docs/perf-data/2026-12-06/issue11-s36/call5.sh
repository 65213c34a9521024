# Issue 11, thirty-sixth session, call 5: every 2-D example at N = 100, 300, 1000, 1001, 5120
# (about 26 M elements each; this session's build, the `gpu` pipeline, no cache, checked
# against fp64), and the 8-byte-vector rule on f32 rows (N = 50, 70) against the build before.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s36/call5.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for n in 50 70; do
  for ex in rmsnorm_bwd_f32 layernorm_bwd_f32; do
    ab_binaries $ex-n$n examples/$ex.mlir M=$(( 26214400 / n )),N=$n partials=resident "" 1 --runs 100
  done
done
args=(); for n in 100 300 1000 1001 5120; do args+=(--sizes "M=$(( 26214400 / n )),N=$n"); done
for ex in rmsnorm_bwd layernorm_bwd rmsnorm_fwd layernorm_fwd softmax_fwd_colsum softmax_bwd_colsum \
    logsoftmax_bwd_colsum gelu_bwd_bias tanh_bwd_bias colmax_rowsum row_col_stats rmsnorm_bwd_f32 layernorm_bwd_f32; do
  [ "$(left)" -lt 30 ] && { echo "$ex: skipped (deadline)" >> "$S"; continue; }
  timeout 60 "$B/morf-bench" examples/$ex.mlir --tuning-cache none --runs 100 --warmup 10 "${args[@]}" \
    --json "$OUT/json/odd-$ex.json" > "$OUT/logs/odd-$ex.txt" 2> "$OUT/logs/odd-$ex.log"
  echo "== $ex rc=$? t=$(( $(date +%s) - T0 ))" >> "$S"
  grep -E '^\| [0-9]' "$OUT/logs/odd-$ex.txt" | awk -F'|' '{printf "%s|%s|%s|%s\n", $2, $4, $7, $9}' >> "$S"
  grep -E 'rel_err' "$OUT/logs/odd-$ex.log" | grep -v ' ok' >> "$S"
done
finish
