# Issue 11, forty-second session, call 2: where the fixed cost of a fused call goes at short
# rows. Call 1 (H100) put RMSNorm backward at 65536 x 200 at 43.6 us a call with its final in
# the grid (one cooperative launch) while ncu gave its kernel 35.2 us; with the final in its own
# launch 42.4 (row kernel 36.0 at 525 CTAs, final 5.0). LayerNorm at 100003 x 100: 35.2 a call,
# 26.9 of kernel. Here:
# 1. the cooperative launch against a plain one of the same kernel and grid
#    (.device-bin/exp/morf-bench: the runtime with MORF_EXP_PLAIN_COOP set launches a
#    cooperative kernel with cuLaunchKernel at the grid capped as before; an experiment only,
#    not committed: the grid barrier then relies on every CTA being resident, which the cap
#    gives on an idle GPU), alternating, at short rows and at the cached table rows;
# 2. the row kernel at the cooperative grid (min-ctas=3) in a plain launch, each launch timed;
# 3. ncu's GPU time of each kernel of the final=launch form.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s42/call2.sh
DEADLINE=${DEADLINE:-300} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
coop() {
  local l=$1 ex=$2 sz=$3 r
  for r in 1 2; do
    B=.device-bin/exp bench_cache "$l-coop$r" "examples/$ex.mlir" "$sz" --runs 200 --no-check
    MORF_EXP_PLAIN_COOP=1 B=.device-bin/exp bench_cache "$l-plain$r" "examples/$ex.mlir" "$sz" --runs 200 --no-check
  done
}
coop rms200 rmsnorm_bwd M=65536,N=200
coop ln100 layernorm_bwd M=100003,N=100
coop rms1024 rmsnorm_bwd M=65536,N=1024
coop ln1024 layernorm_bwd M=65536,N=1024
coop rms384 rmsnorm_bwd M=576000,N=384
coop gelu200 gelu_bwd_bias M=65536,N=200
R='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{LO})'
bench_pipeline rms200-launch-mc3 examples/rmsnorm_bwd.mlir M=65536,N=200 partials=resident "final=launch min-ctas=3" --runs 200 --no-check --per-kernel
ncu_profile ncu-rms200-launch-k0 examples/rmsnorm_bwd.mlir 'rmsnorm_bwd_k0' M=65536,N=200 "${R/LO/final=launch min-ctas=3}"
ncu_profile ncu-rms200-launch-k1 examples/rmsnorm_bwd.mlir 'rmsnorm_bwd_k1' M=65536,N=200 "${R/LO/final=launch min-ctas=3}"
ncu_profile ncu-ln100-launch-k0 examples/layernorm_bwd.mlir 'layernorm_bwd_k0' M=100003,N=100 "${R/LO/final=launch}"
finish
