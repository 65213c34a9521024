# Issue 11, thirty-seventh session, call 4: the fusion search also tries the split that fills
# exactly one wave of one to four programs per SM (fusion/analysis.rs `split_candidates`, up to
# the longest configured split). Main at 084423e (.device-bin/old) against this build, the `gpu`
# pipeline's options, checked, on the shapes whose split the change moves most (and four table
# shapes it moves a little: 256 -> 249, 128 -> 125).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s37/call4.sh
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r ex s; do
  ab_binaries $ex-${s//[=,]/_} examples/$ex.mlir $s partials=resident "" 1 --runs 100
done <<'LIST'
row_col_stats M=5120,N=5120
row_col_stats M=32768,N=4096
row_col_stats M=5120,N=1024
colmax_rowsum M=5120,N=5120
colmax_rowsum M=65536,N=200
colmax_rowsum M=32768,N=768
colmax_rowsum M=100003,N=100
layernorm_bwd M=5120,N=5120
layernorm_bwd M=65536,N=200
layernorm_bwd M=10000,N=2000
layernorm_bwd M=100003,N=100
layernorm_bwd_f32 M=5120,N=5120
rmsnorm_bwd M=5120,N=1024
rmsnorm_bwd M=100003,N=100
rmsnorm_bwd_f32 M=5120,N=5120
softmax_bwd_colsum M=5120,N=5120
softmax_bwd_colsum M=32768,N=4096
softmax_fwd_colsum M=32768,N=768
logsoftmax_bwd_colsum M=5120,N=5120
tanh_bwd_bias M=131072,N=256
tanh_bwd_bias M=32768,N=4096
gelu_bwd_bias M=65536,N=200
two_norms_shared_weight M=131072,N=256
layernorm_bwd M=65536,N=1024
rmsnorm_bwd M=16384,N=8192
layernorm_bwd M=32768,N=4096
LIST
finish
