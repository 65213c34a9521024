# Issue 11, twenty-third session, call 4: the heuristic's new rule (a heavy warp-per-row row
# that would give CTAs up for its next row in registers stages it through shared memory
# instead, its loads held packed) against the binary before it (`.device-bin/old/
# morf-bench-base`, built at 898e508), untuned (`--tuning-cache none`), alternating A B A B,
# on every example and shape of a survey of 17 shapes x 15 examples where the rule fires
# (N = 640-1024, a warp per row). Then compute-sanitizer on one such kernel.
set -u
DEADLINE=560 . tools/scripts/device-call.sh
ab() {
  local l=$1 f=$2 sz=$3 r bin tag
  for r in 1 2; do
    for tag in old new; do
      [ "$(left)" -lt 40 ] && { echo "$l-$tag$r: skipped (deadline)" >> "$S"; continue; }
      bin=$B/morf-bench; [ $tag = old ] && bin=$B/old/morf-bench-base
      K="--runs 100"; [ $r = 2 ] && K="--runs 100 --no-check"
      timeout 90 $bin $f --tuning-cache none --sizes $sz --warmup 10 --json $OUT/json/$l-$tag$r.json $K \
        > $OUT/logs/$l-$tag$r.txt 2>&1
      echo "$l-$tag$r rc=$?: $(summary_of $OUT/logs/$l-$tag$r.txt)" >> "$S"
    done
  done
}
for c in gelu_bwd_bias:M=65536,N=1024 softmax_fwd_colsum:M=65536,N=1024 tanh_bwd_bias:M=65536,N=1024 \
         gelu_bwd_bias:M=32768,N=768 rmsnorm_bwd:M=32768,N=768 softmax_fwd_colsum:M=32768,N=768 \
         two_norms_shared_weight:M=32768,K=32768,N=768 rmsnorm_bwd:M=33791,N=768 \
         gelu_bwd_bias:M=262144,N=768 rmsnorm_bwd:M=262144,N=768 two_norms_shared_weight:M=262144,K=262144,N=768 \
         gelu_bwd_bias:M=65536,N=640 softmax_fwd_colsum:M=65536,N=640 gelu_bwd_bias:M=200000,N=896; do
  e=${c%%:*}; s=${c#*:}
  ab $e-${s//[=,]/_} examples/$e.mlir $s
done
sanitize gelu1k gelu_bwd_bias M=4099,N=1024 M=65536,N=1024
finish
