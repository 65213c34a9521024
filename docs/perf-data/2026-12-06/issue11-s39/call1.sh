# Issue 11, thirty-ninth session, call 1: the fusion model prices the partials of row-fused
# kernels (their finals and workspaces too) at the split they run at (`cost::run_time_splits`),
# and a partial outside a row-fused kernel no longer keeps every other partial's split fixed.
# main before (1e00a8b, .device-bin/old, as "o") against this build ("n"), the `gpu`
# pipeline's options, checked, one round: the shapes whose run-time split moves by more than
# 5% (32, of the 92 whose split moves at all), eight that move by 1-3%, and, two rounds each,
# the three table rows whose split moves (LayerNorm backward at 16384 x 8192 and 32768 x 4096,
# RMSNorm backward at 32768 x 4096: 128 -> a run-time 125; on an H100 the committed cache has
# no entry, so the table rows run the cost model's schedules), and row_col_stats at 16384 and
# 8192 x 16384, whose row kernel's partial now takes the run-time split beside a standalone
# partial that keeps its own.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s39/call1.sh
DEADLINE=${DEADLINE:-560} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ab_binaries ln-16384x8192 examples/layernorm_bwd.mlir M=16384,N=8192 partials=resident "" 2 --runs 100
ab_binaries ln-32768x4096 examples/layernorm_bwd.mlir M=32768,N=4096 partials=resident "" 2 --runs 100
ab_binaries rms-32768x4096 examples/rmsnorm_bwd.mlir M=32768,N=4096 partials=resident "" 2 --runs 100
ab_list --runs 100 <<'LIST'
colmax_rowsum M=100003,N=100
colmax_rowsum M=65536,N=200
colmax_rowsum M=32768,N=768
colmax_rowsum M=33791,N=768
colmax_rowsum M=1000000,N=256
layernorm_bwd M=8388608,N=2
layernorm_bwd M=8388608,N=3
layernorm_bwd_f32 M=100003,N=100
layernorm_bwd_f32 M=65536,N=200
layernorm_bwd_f32 M=131072,N=256
logsoftmax_bwd_colsum M=262144,N=100
logsoftmax_bwd_colsum M=100003,N=100
logsoftmax_bwd_colsum M=32768,N=4096
logsoftmax_bwd_colsum M=262144,N=64
reduce3d B=64,M=1000,N=1000
rmsnorm_bwd M=8388608,N=2
rmsnorm_bwd M=8388608,N=3
rmsnorm_bwd_f32 M=262144,N=100
rmsnorm_bwd_f32 M=100003,N=100
rmsnorm_bwd_f32 M=262144,N=64
row_col_stats M=1000000,N=256
softmax_bwd_colsum M=262144,N=100
softmax_bwd_colsum M=100003,N=100
softmax_bwd_colsum M=32768,N=4096
softmax_bwd_colsum M=262144,N=64
softmax_fwd_colsum M=100003,N=100
softmax_fwd_colsum M=65536,N=200
softmax_fwd_colsum M=32768,N=768
softmax_fwd_colsum M=33791,N=768
softmax_fwd_colsum M=131072,N=256
softmax_fwd_colsum M=262144,N=64
layernorm_bwd M=32768,N=768
rmsnorm_bwd M=131072,N=256
colmax_rowsum M=65536,N=1024
row_col_stats M=65536,N=1024
softmax_fwd_colsum M=65536,N=1024
layernorm_bwd M=262144,N=100
reduce3d B=64,M=1024,N=1024
two_norms_shared_weight M=131072,N=256,K=64
row_col_stats M=16384,N=16384
row_col_stats M=8192,N=16384
LIST
finish
