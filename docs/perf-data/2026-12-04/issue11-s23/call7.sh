# Issue 11, twenty-third session, call 7: call 6 found the staged gelu_bwd_bias at 200000 x 896
# fast with one CTA a SM (min-ctas=1, 148 registers: 335 us) and slow at the two the rule plans
# (124 registers: 433). The rule's other cases, its default against min-ctas=1 (unchecked; the
# default's outputs were checked in calls 4-5).
set -u
DEADLINE=150 . tools/scripts/device-call.sh
K="--runs 100 --no-check"
for c in gelu_bwd_bias:M=262144,N=768 rmsnorm_bwd:M=262144,N=768 gelu_bwd_bias:M=65536,N=1024 softmax_fwd_colsum:M=65536,N=1024 tanh_bwd_bias:M=65536,N=1024 softmax_fwd_colsum:M=200000,N=896; do
  e=${c%%:*}; s=${c#*:}; l=$e-${s//[=,]/_}
  bench_pipeline $l-default examples/$e.mlir $s "" "" $K
  bench_pipeline $l-mc1 examples/$e.mlir $s "" "min-ctas=1" $K
done
finish
