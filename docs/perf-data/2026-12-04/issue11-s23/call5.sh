# Issue 11, twenty-third session, call 5: the rule of call 4 with the staged kernel also
# emitted chunk by chunk (call 4 found gelu_bwd_bias at 200000 x 896 slower, 364 -> 476 us:
# its partial last chunk made ptxas spill 72 bytes at two CTAs a SM; chunk-major emission
# fits it in 124 registers), against the binary before the rule, untuned, A B A B; the other
# cases of call 4 once with this build; compute-sanitizer on the partial-chunk kernel.
set -u
DEADLINE=400 . tools/scripts/device-call.sh
ab() {
  local l=$1 f=$2 sz=$3 n=$4 r bin tag
  for r in $(seq 1 $n); do
    for tag in old new; do
      [ $n = 1 ] && [ $tag = old ] && continue
      [ "$(left)" -lt 30 ] && { echo "$l-$tag$r: skipped (deadline)" >> "$S"; continue; }
      bin=$B/morf-bench; [ $tag = old ] && bin=$B/old/morf-bench-base
      K="--runs 100"; [ $r = 2 ] && K="--runs 100 --no-check"
      timeout 90 $bin $f --tuning-cache none --sizes $sz --warmup 10 --json $OUT/json/$l-$tag$r.json $K \
        > $OUT/logs/$l-$tag$r.txt 2>&1
      echo "$l-$tag$r rc=$?: $(summary_of $OUT/logs/$l-$tag$r.txt)" >> "$S"
    done
  done
}
for c in gelu_bwd_bias:M=200000,N=896:2 gelu_bwd_bias:M=65536,N=960:2 softmax_fwd_colsum:M=200000,N=896:2 \
         gelu_bwd_bias:M=65536,N=1024:1 softmax_fwd_colsum:M=65536,N=1024:1 tanh_bwd_bias:M=65536,N=1024:1 \
         rmsnorm_bwd:M=32768,N=768:1 gelu_bwd_bias:M=32768,N=768:1 two_norms_shared_weight:M=32768,K=32768,N=768:1 \
         gelu_bwd_bias:M=65536,N=640:1; do
  e=${c%%:*}; r=${c#*:}; s=${r%:*}; n=${r##*:}
  ab $e-${s//[=,]/_} examples/$e.mlir $s $n
done
sanitize gelu896 gelu_bwd_bias M=4099,N=896 M=200000,N=896
finish
