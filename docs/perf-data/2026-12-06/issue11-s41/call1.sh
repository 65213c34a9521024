# Issue 11, forty-first session, call 1: the fortieth session's call 8, verbatim (it was not run there).
# The session's untimed changes against the build before them (.device-bin/old: d4133fc):
# the unfused reduce3d with its reductions coalesced (`--unfused`, per kernel), the
# bias gradients at 16384 x 16384 (S = 128 against the timed S = 63) and at 8192 x 12288
# (unchanged: a control), and logsoftmax_bwd_colsum at N = 32768, whose plan the streamed
# form moves (two kernels against one cluster per row).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s41/call1.sh
DEADLINE=${DEADLINE:-560} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for sz in B=4096,M=2048,N=3 B=64,M=1024,N=1024 B=16,M=4096,N=200; do
  ab_text "rd-unf-${sz//[=,]/_}" examples/reduce3d.mlir "$sz" gpu-unfused 1 --runs 100 --per-kernel
done
ab_list --runs 100 <<'LIST'
gelu_bwd_bias M=16384,N=16384
tanh_bwd_bias M=8192,N=12288
logsoftmax_bwd_colsum M=2048,N=32768
logsoftmax_bwd_colsum M=8192,N=32768
LIST
finish
