# Issue 11, fortieth session, call 1 (this build, d4133fc + the per-kernel JSON's arg_bytes):
# first the thirty-ninth session's call 3 as it was written (one A/B round against 1e00a8b in
# .device-bin/old at five shapes, and compute-sanitizer on the mixed plan of row_col_stats
# compiled for 16384 x 16384 and run at 1031 x 16384); then a survey of item 3, the unfused
# baseline: every example, fused and unfused, no tuning cache, each launch also timed on its
# own against the floor of its own buffers, at nine 2-D shapes (four for the 3-D reduce3d and
# two_norms_shared_weight), 50 calls each, unchecked (the checks are the sweeps' business).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s40/call1.sh
DEADLINE=${DEADLINE:-570} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ab_list --runs 100 <<'LIST'
logsoftmax_bwd_colsum M=100003,N=100
rmsnorm_bwd_f32 M=100003,N=100
colmax_rowsum M=65536,N=200
softmax_fwd_colsum M=262144,N=64
layernorm_bwd M=16384,N=8192
LIST
sanitize rcs-mixed row_col_stats M=1031,N=16384 M=16384,N=16384
SH2="--sizes M=65536,N=1024 --sizes M=16384,N=8192 --sizes M=576000,N=384 --sizes M=65536,N=200
  --sizes M=262144,N=64 --sizes M=8388608,N=3 --sizes M=4096,N=16384 --sizes M=32768,N=768 --sizes M=100003,N=100"
for ex in rmsnorm_bwd layernorm_bwd rmsnorm_bwd_f32 layernorm_bwd_f32 rmsnorm_fwd layernorm_fwd \
  softmax_fwd_colsum softmax_bwd_colsum logsoftmax_bwd_colsum gelu_bwd_bias tanh_bwd_bias \
  colmax_rowsum row_col_stats; do
  # shellcheck disable=SC2086
  survey "sv-$ex" "$ex" $SH2 --runs 50 --no-check
done
survey sv-reduce3d reduce3d --sizes B=64,M=1024,N=1024 --sizes B=4096,M=2048,N=3 --sizes B=8,M=8192,N=768 \
  --sizes B=16,M=4096,N=200 --runs 50 --no-check
survey sv-two_norms two_norms_shared_weight --sizes M=65536,K=32768,N=1024 --sizes M=576000,K=100000,N=384 \
  --sizes M=16384,K=8192,N=8192 --sizes M=65536,K=65536,N=200 --runs 50 --no-check
finish
