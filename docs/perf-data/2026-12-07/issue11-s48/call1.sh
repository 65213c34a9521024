# Issue 11, forty-eighth session, call 1 (the forty-seventh session's call3.sh, with a tune at the end on an H200):
# the RMSNorm f32 row at 576000 x 384 with its cached options (`partials=resident`,
# `interleave-splits=true staged-rows=2`), as the cache holds it (`min-ctas=margin`: two CTAs
# a SM, as tuned) against the plan without the margin (three CTAs), two rounds alternating,
# round 1 of the plan checked against fp64; if three CTAs win, drop `min-ctas=margin` from that
# entry. Then the bf16 table rows with the committed cache (unchecked) and Inductor's
# default in the same call (anchors.py, ONLY_INDUCTOR=1), and Inductor's default at the fp32
# rows. On an H200, with the time left: the tuner on LayerNorm 65536 x 1024 from its entry
# (40 trials), the row the table misses by most.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s48/call1.sh
DEADLINE=${DEADLINE:-560} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for r in 1 2; do
  ck=--no-check; [ $r = 1 ] && ck=""
  bench_pipeline "f32-rms-margin$r" examples/rmsnorm_bwd_f32.mlir M=576000,N=384 partials=resident \
    "interleave-splits=true staged-rows=2 min-ctas=margin" --runs 100 --no-check
  bench_pipeline "f32-rms-plan$r" examples/rmsnorm_bwd_f32.mlir M=576000,N=384 partials=resident \
    "interleave-splits=true staged-rows=2" --runs 100 $ck
done
grep -h "registers" "$OUT"/logs/f32-rms-*1.txt | sed 's/^/regs: /' >> "$S"
table_with_inductor
for op in rms ln; do
  [ "$(left)" -lt 60 ] && { echo "peers f32 $op: skipped (deadline)" >> "$S"; continue; }
  (cd "$B/peers" && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=576000x384:f32 timeout 60 python3 anchors.py $op) > "$OUT/logs/peers-f32-$op.txt" 2>&1
  echo "== Inductor default f32 $op rc=$?" >> "$S"
  grep -E "copy bandwidth|inductor_mix" "$OUT/logs/peers-f32-$op.txt" | grep -v kernels >> "$S"
done
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  tune layernorm_bwd M=65536,N=1024 $(( $(left) - 15 )) --warm-start --max-trials 40
fi
finish
