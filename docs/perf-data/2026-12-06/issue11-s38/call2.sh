# Issue 11, thirty-eighth session, call 2: exact one-wave splits up to 256 rows
# (.device-bin/x257: ca7d191 with EXACT_WAVE_SPLIT_BELOW = 257, as "o") against ca7d191 (64, as
# "n") on the example shapes whose fused schedule that moves (morf-opt over every example at
# 22 shapes), the `gpu` pipeline's options, checked.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s38/call2.sh
DEADLINE=${DEADLINE:-560} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
OLD=.device-bin/x257 ab_list --runs 100 <<'LIST'
rmsnorm_bwd M=65536,N=1024
layernorm_bwd M=65536,N=1024
rmsnorm_bwd M=32768,N=4096
layernorm_bwd M=32768,N=4096
rmsnorm_bwd M=32768,N=768
row_col_stats M=65536,N=1024
colmax_rowsum M=65536,N=1024
softmax_bwd_colsum M=65536,N=1024
logsoftmax_bwd_colsum M=65536,N=1024
softmax_fwd_colsum M=65536,N=1024
tanh_bwd_bias M=65536,N=1024
two_norms_shared_weight M=65536,N=1024,K=1024
row_col_stats M=65536,N=200
colmax_rowsum M=65536,N=200
layernorm_bwd_f32 M=65536,N=200
row_col_stats M=32768,N=768
softmax_fwd_colsum M=32768,N=768
tanh_bwd_bias M=32768,N=768
rmsnorm_bwd_f32 M=32768,N=4096
logsoftmax_bwd_colsum M=32768,N=4096
softmax_bwd_colsum M=32768,N=768
tanh_bwd_bias M=32768,N=4096
layernorm_bwd_f32 M=65536,N=1024
rmsnorm_bwd_f32 M=65536,N=1024
LIST
finish
