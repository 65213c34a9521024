# Issue 11, thirty-seventh session, call 6: the fusion search also tries the split that fills
# exactly one wave of two programs per SM (fusion/analysis.rs `split_candidates`; call 4 tried
# one to four programs and lost 7-9% on two shapes). Main at eead8d9 (.device-bin/old)
# against this build, the `gpu` pipeline's options, checked, on the shapes whose split it moves
# (morf-opt over every example at 20 shapes), two table shapes among them.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s37/call6.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r ex s; do
  ab_binaries $ex-${s//[=,]/_} examples/$ex.mlir $s partials=resident "" 1 --runs 100
done <<'LIST'
row_col_stats M=5120,N=5120
rmsnorm_bwd M=16384,N=8192
colmax_rowsum M=5120,N=5120
colmax_rowsum M=5120,N=1024
row_col_stats M=5120,N=1024
gelu_bwd_bias M=5120,N=5120
layernorm_bwd M=5120,N=5120
layernorm_bwd M=65536,N=200
layernorm_bwd M=5120,N=1024
layernorm_bwd M=10000,N=2000
layernorm_bwd_f32 M=16384,N=8192
layernorm_bwd_f32 M=5120,N=5120
layernorm_bwd_f32 M=10000,N=2000
logsoftmax_bwd_colsum M=16384,N=8192
logsoftmax_bwd_colsum M=5120,N=5120
rmsnorm_bwd M=5120,N=5120
rmsnorm_bwd M=5120,N=1024
rmsnorm_bwd_f32 M=16384,N=8192
rmsnorm_bwd_f32 M=5120,N=5120
softmax_bwd_colsum M=16384,N=8192
softmax_bwd_colsum M=5120,N=5120
softmax_fwd_colsum M=5120,N=5120
tanh_bwd_bias M=16384,N=8192
layernorm_bwd M=65536,N=1024
rmsnorm_bwd M=65536,N=1024
LIST
finish
