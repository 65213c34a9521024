# Issue 11, thirty-second session, call 3: the new defaults at N = 7, 9, 14 and 20 beside
# Inductor's default (torch.compile, do_bench) in the same call; the parity fix on RMSNorm
# 32768 x 4096 again (old build, new build, alternating, two rounds each; call 2 had +0.7%).
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s32/call3.sh
DEADLINE=400 . tools/scripts/device-call.sh
OLDB=.device-bin/old
for r in 1 2; do
  B=$OLDB bench_cache "rms32k-old$r" examples/rmsnorm_bwd.mlir M=32768,N=4096 --runs 100
  bench_cache "rms32k-new$r" examples/rmsnorm_bwd.mlir M=32768,N=4096 --runs 100
done
for t in "rms-n7 rmsnorm_bwd M=4194304,N=7" "rms-n9 rmsnorm_bwd M=4194304,N=9" "rms-n14 rmsnorm_bwd M=2097152,N=14" \
         "rms-n20 rmsnorm_bwd M=1048576,N=20" "ln-n7 layernorm_bwd M=4194304,N=7" "ln-n14 layernorm_bwd M=2097152,N=14"; do
  set -- $t
  bench_cache "$1" examples/$2.mlir "$3" --runs 100
done
echo "inductor:" >> "$S"
for op in rms ln; do
  [ "$(left)" -gt 60 ] && ONLY_INDUCTOR=1 SHAPES=4194304x7:bf16,4194304x9:bf16,2097152x14:bf16,1048576x20:bf16 \
    timeout $(( $(left) - 10 )) python3 .device-bin/peers/anchors.py $op > "$OUT/logs/inductor-$op.txt" 2>&1
  grep -E "copy bandwidth|of copy-floor" "$OUT/logs/inductor-$op.txt" >> "$S"
done
finish
