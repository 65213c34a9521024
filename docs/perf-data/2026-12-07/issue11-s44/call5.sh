# Issue 11, forty-fourth session, call 5: what costs tanh_bwd_bias at 262144 x 100 in call 4
# (flat partials CTAs of whole warps with .maxnreg 64, against the forty-third session's
# build): the register bounds of the whole-warp CTA (default: 1 CTA a SM and .maxnreg 64;
# min-ctas=none: ptxas chooses; min-ctas=1: the CTA bound alone, as call 2's flat-warps=true)
# and flat-warps=false, one binary, against the old build (.device-bin/old, 545a282); then the
# table rows whose cached schedule has two rows in flight (LayerNorm backward 65536 x 1024:
# the per-row scalars now loaded ahead) and RMSNorm's, old build against new. (As run, on an
# H100: the cache has no H100 entries, so these ran the cost model's schedules.)
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s44/call5.sh
DEADLINE=${DEADLINE:-330} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
regs() {  # round
  local r=$1 ck ex sz l v
  ck=--no-check; [ "$r" = 1 ] && ck=""
  for es in tanh_bwd_bias:M=262144,N=100 tanh_bwd_bias:M=65536,N=200 gelu_bwd_bias:M=65536,N=200 gelu_bwd_bias:M=100003,N=100; do
    ex=${es%%:*}; sz=${es#*:}; l=$ex-${sz//[=,]/_}
    B=.device-bin/old bench_pipeline "$l-old$r" "examples/$ex.mlir" "$sz" partials=resident "" --runs 100 $ck
    for v in new:"" none:"min-ctas=none" ctas1:"min-ctas=1" nowarps:"flat-warps=false"; do
      bench_pipeline "$l-${v%%:*}$r" "examples/$ex.mlir" "$sz" partials=resident "${v#*:}" --runs 100 $ck
    done
  done
}
regs 1
for r in 1 2; do
  for ex in layernorm_bwd rmsnorm_bwd; do
    B=.device-bin/old bench_cache "cache-$ex-M_65536_N_1024-old$r" "examples/$ex.mlir" M=65536,N=1024 --runs 100 --no-check
    bench_cache "cache-$ex-M_65536_N_1024-new$r" "examples/$ex.mlir" M=65536,N=1024 --runs 100 $([ "$r" = 1 ] || echo --no-check)
  done
done
regs 2
finish
