# Issue 11, thirty-eighth session, call 3 (the thirty-seventh session's call 7, not run there):
# the exact two-programs-per-SM split under 64 rows (EXACT_WAVE_SPLIT_BELOW) on the 14 example
# shapes whose schedule it moves that its call 6 did not time, and LayerNorm backward at 65536 x
# 200. d29cfe7 (main before the rule, .device-bin/d29, as "o") against ca7d191 (as "n": its fused
# schedules equal 2004f7d's), the `gpu` pipeline's options, checked.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s38/call3.sh
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
OLD=.device-bin/d29 ab_list --runs 100 <<'LIST'
tanh_bwd_bias M=5120,N=5120
gelu_bwd_bias M=5120,N=1024
tanh_bwd_bias M=5120,N=1024
colmax_rowsum M=16384,N=8192
row_col_stats M=16384,N=8192
softmax_fwd_colsum M=16384,N=8192
layernorm_bwd_f32 M=5120,N=1024
logsoftmax_bwd_colsum M=5120,N=1024
rmsnorm_bwd_f32 M=5120,N=1024
softmax_bwd_colsum M=5120,N=1024
softmax_fwd_colsum M=5120,N=1024
two_norms_shared_weight M=5120,N=5120,K=5120
layernorm_bwd M=65536,N=200
LIST
finish
