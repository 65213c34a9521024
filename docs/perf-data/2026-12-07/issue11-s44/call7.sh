# Issue 11, forty-fourth session, call 7: the committed default (flat partials CTAs of whole
# warps under the planned CTA bound, no register cap) against the forty-third session's build
# (.device-bin/old, 545a282: CTAs of N x c threads) at the bias gradients' N that it widens
# (N = 40, 48, 72, 80, 100, 200), fused, no cache, round 1 checked.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s44/call7.sh
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for r in 1 2; do
  ck=--no-check; [ "$r" = 1 ] && ck=""
  for es in gelu_bwd_bias:M=262144,N=40 gelu_bwd_bias:M=262144,N=48 gelu_bwd_bias:M=262144,N=72 gelu_bwd_bias:M=262144,N=80 \
    tanh_bwd_bias:M=262144,N=100 gelu_bwd_bias:M=65536,N=200; do
    ex=${es%%:*}; sz=${es#*:}; l=$ex-${sz//[=,]/_}
    B=.device-bin/old bench_pipeline "$l-old$r" "examples/$ex.mlir" "$sz" partials=resident "" --runs 100 $ck
    bench_pipeline "$l-new$r" "examples/$ex.mlir" "$sz" partials=resident "" --runs 100 $ck
  done
done
finish
