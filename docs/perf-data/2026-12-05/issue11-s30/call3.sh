# Session 30, call 3: where a short call's time goes, and the peer there. RMSNorm backward
# untuned at four shapes outside the table's long rows: the fused call, the same with its
# final reduction in its own launch (per-kernel times), rownorm (dx alone: no partials, no
# final) and add2 (a pointwise kernel of the norms' traffic), programs of the sixteenth
# session (copied to .device-bin/programs). Then LayerNorm fused and Inductor's default for
# both at three of them. The flush-lanes build (flush_lanes with its 256-slot threshold).
#   OUT=$OUT DEADLINE=420 bash docs/perf-data/2026-12-05/issue11-s30/call3.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for s in M=8388608,N=2 M=131072,N=256 M=32768,N=768 M=65536,N=1024; do
  l=${s//[=,]/_}
  bench_pipeline "rms-$l" examples/rmsnorm_bwd.mlir "$s" "partials=resident" "" --runs 100
  bench_pipeline "rms-launch-$l" examples/rmsnorm_bwd.mlir "$s" "partials=resident" "final=launch" --runs 100 --per-kernel
  grep -A6 'launch(es) per call' "$OUT/logs/rms-launch-$l.txt" | sed 's/^/  /' >> "$S"
  bench_text "rownorm-$l" "$B/programs/rownorm.mlir" "$s" gpu --runs 100
  bench_text "add2-$l" "$B/programs/add2.mlir" "$s" gpu --runs 100
done
for s in M=8388608,N=2 M=131072,N=256 M=32768,N=768; do
  bench_pipeline "ln-${s//[=,]/_}" examples/layernorm_bwd.mlir "$s" "partials=resident" "" --runs 100
done
for op in rms ln; do
  [ "$(left)" -lt 100 ] && { echo "peers $op: skipped (deadline)" >> "$S"; continue; }
  (cd "$B/peers" && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=8388608x2:bf16,131072x256:bf16,32768x768:bf16 timeout $(( $(left) - 30 )) python3 anchors.py $op) > "$OUT/logs/peers-$op.txt" 2>&1
  echo "== Inductor default $op rc=$?" >> "$S"
  grep -E "copy bandwidth|inductor_mix" "$OUT/logs/peers-$op.txt" | grep -v kernels >> "$S"
done
finish
