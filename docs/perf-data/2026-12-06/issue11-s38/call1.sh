# Issue 11, thirty-eighth session, call 1: NestShape::reduces_only (ca7d191) against main
# before it (eef6986, .device-bin/old). (a) The `gpu-unfused` pipeline over the example shapes
# whose schedules it moves (its row reductions share their input with another kernel: not
# streamed, now the reduction-only lanes, second row and packing); (b) LayerNorm backward at
# 65536 x 200 with exact one-wave splits up to 256 rows (.device-bin/x257: this build with
# EXACT_WAVE_SPLIT_BELOW = 257), whose standalone db partial now runs the 8 lanes its model
# prices, against this build.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s38/call1.sh
DEADLINE=${DEADLINE:-540} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu"
for i in 1 2; do
  OLD=.device-bin/x257 ab_binaries x257-layernorm_bwd-M_65536_N_200 examples/layernorm_bwd.mlir M=65536,N=200 partials=resident "" 1 --runs 100
done
while read -r ex sz; do
  ab_text "unf-$ex-${sz//[=,]/_}" "examples/$ex.mlir" "$sz" "$U{size-hints=$sz})" 1 --runs 100
done <<'LIST'
layernorm_bwd M=65536,N=200
layernorm_bwd M=131072,N=256
layernorm_bwd M=576000,N=384
layernorm_bwd M=8388608,N=2
layernorm_bwd M=8388608,N=3
layernorm_bwd M=262144,N=64
colmax_rowsum M=1000000,N=256
layernorm_bwd_f32 M=262144,N=100
rmsnorm_fwd M=65536,N=200
softmax_fwd_colsum M=65536,N=200
row_col_stats M=8388608,N=2
layernorm_fwd M=65536,N=200
LIST
finish
