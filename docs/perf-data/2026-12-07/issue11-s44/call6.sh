# Issue 11, forty-fourth session, call 6: flat partials CTAs of whole warps planned at 80
# registers as a cap (.maxnreg 80, no CTA bound: the committed default) against the
# forty-third session's build (.device-bin/old, 545a282: CTAs of N x c threads) and against
# min-ctas=1 (.minnctapersm 1 alone: 72 registers at 800 threads, call 5's best), fused, no
# cache, round 1 checked.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s44/call6.sh
DEADLINE=${DEADLINE:-300} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for r in 1 2; do
  ck=--no-check; [ "$r" = 1 ] && ck=""
  for es in tanh_bwd_bias:M=262144,N=100 tanh_bwd_bias:M=65536,N=200 gelu_bwd_bias:M=65536,N=200 gelu_bwd_bias:M=100003,N=100 \
    tanh_bwd_bias:M=100003,N=100 gelu_bwd_bias:M=262144,N=72 gelu_bwd_bias:M=262144,N=40; do
    ex=${es%%:*}; sz=${es#*:}; l=$ex-${sz//[=,]/_}
    B=.device-bin/old bench_pipeline "$l-old$r" "examples/$ex.mlir" "$sz" partials=resident "" --runs 100 $ck
    bench_pipeline "$l-new$r" "examples/$ex.mlir" "$sz" partials=resident "" --runs 100 $ck
    bench_pipeline "$l-ctas1$r" "examples/$ex.mlir" "$sz" partials=resident "min-ctas=1" --runs 100 --no-check
  done
done
finish
