# Issue 11, forty-fourth session, call 4: this session's build against the forty-third's
# (.device-bin/old/morf-bench, 545a282), fused, no cache, round 1 checked: flat partials CTAs
# of whole warps by default with the planned registers as a cap (.maxnreg 64) at the bias
# gradients' short rows (N = 64-384), and rows in flight that load the per-row scalars ahead
# (LayerNorm backward at 32768 x 768 and 33791 x 768, the default shapes it moves).
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s44/call4.sh
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
list() {
  cat <<'LIST'
gelu_bwd_bias M=65536,N=200
tanh_bwd_bias M=65536,N=200
gelu_bwd_bias M=100003,N=100
tanh_bwd_bias M=262144,N=100
gelu_bwd_bias M=262144,N=72
gelu_bwd_bias M=262144,N=64
gelu_bwd_bias M=131072,N=256
gelu_bwd_bias M=576000,N=384
layernorm_bwd M=32768,N=768
layernorm_bwd M=33791,N=768
LIST
}
list | ab_list --runs 100
list | sed 's/^/r2-/' | while read -r ex sz; do
  ab_binaries "$ex-${sz//[=,]/_}" "examples/${ex#r2-}.mlir" "$sz" partials=resident "" 1 --runs 100 --no-check
done
finish
