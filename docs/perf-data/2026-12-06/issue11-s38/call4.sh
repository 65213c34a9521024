# Issue 11, thirty-eighth session, call 4: where LayerNorm backward at 65536 x 200 loses with
# exact splits up to 256 rows (.device-bin/x257, call 1: 45.5 -> 71.3 us): ncu of its three
# kernels (the standalone db partial, the row kernel, the final) and of this build's two; and
# the gpu-unfused LayerNorm backward at 8388608 x 3 again (call 1: 502.0 -> 526.7 us, one round).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s38/call4.sh
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for k in 0 1 2; do
  B=.device-bin/x257 ncu_profile x257-ln200-k$k examples/layernorm_bwd.mlir "layernorm_bwd_k$k\$" M=65536,N=200
done
for k in 0 1; do
  ncu_profile main-ln200-k$k examples/layernorm_bwd.mlir "layernorm_bwd_k$k\$" M=65536,N=200
done
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu"
ab_text unf-layernorm_bwd-M_8388608_N_3 examples/layernorm_bwd.mlir M=8388608,N=3 "$U{size-hints=M=8388608,N=3})" 3 --runs 100
finish
