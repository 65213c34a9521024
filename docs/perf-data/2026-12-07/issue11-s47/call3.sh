# Issue 11, forty-seventh session, call 3: the fp32 rows at 576000 x 384 with the committed
# cache, the build before (`.device-bin/old`: the margin plan) against this one, two rounds
# alternating (the cached RMSNorm f32 schedule plans three CTAs a SM now, two before;
# LayerNorm f32 is unchanged), round 1 of the new build checked against fp64; then the
# issue's bf16 table rows with the cache and this build (unchecked) and Inductor's default in
# the same call (anchors.py, ONLY_INDUCTOR=1), and Inductor's default at the fp32 rows.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s47/call3.sh
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for r in 1 2; do
  for ex in rmsnorm_bwd_f32 layernorm_bwd_f32; do
    ck=--no-check; [ $r = 1 ] && ck=""
    B=.device-bin/old bench_cache "f32-$ex-o$r" "examples/$ex.mlir" M=576000,N=384 --runs 100 --no-check
    bench_cache "f32-$ex-n$r" "examples/$ex.mlir" M=576000,N=384 --runs 100 $ck
  done
done
grep -h "registers" "$OUT"/logs/f32-*-[on]1.txt | sed 's/^/regs: /' >> "$S"
table_with_inductor
for op in rms ln; do
  [ "$(left)" -lt 60 ] && { echo "peers f32 $op: skipped (deadline)" >> "$S"; continue; }
  (cd "$B/peers" && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=576000x384:f32 timeout 60 python3 anchors.py $op) > "$OUT/logs/peers-f32-$op.txt" 2>&1
  echo "== Inductor default f32 $op rc=$?" >> "$S"
  grep -E "copy bandwidth|inductor_mix" "$OUT/logs/peers-f32-$op.txt" | grep -v kernels >> "$S"
done
finish
