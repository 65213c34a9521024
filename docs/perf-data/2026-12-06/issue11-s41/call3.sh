# Issue 11, forty-first session, call 3: this session's split-K changes (the build in
# .device-bin/s41) against the build before them (.device-bin: 8ead763's modules): a partial's
# rows in groups of four (two for f32 rows), one reciprocal a row for a vector divided by one
# value (16-byte vectors for softmax_fwd_colsum's column sum), and the final in the partial's
# grid behind a grid barrier. The unfused programs with every launch also timed on its own
# (`--per-kernel`), one round, 50 calls; then the fused shapes whose modules move
# (tools/scripts/schedule_diff.sh: two_norms_shared_weight's plan at 4096 x 16384, the merged
# finals at N = 17) and a control whose module does not (rmsnorm_bwd 65536 x 1024).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s41/call3.sh
export OLD=.device-bin B=.device-bin/s41
DEADLINE=${DEADLINE:-570} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ab_list --runs 100 <<'LIST'
two_norms_shared_weight M=4096,K=64,N=16384
two_norms_shared_weight M=32768,K=64,N=4096
logsoftmax_bwd_colsum M=2097152,N=17
rmsnorm_bwd M=65536,N=1024
LIST
for sz in M=65536,N=200 M=100003,N=100 M=8388608,N=3 M=65536,N=1024 M=576000,N=384; do
  ck=--no-check; case $sz in M=65536,N=200|M=100003,N=100) ck="";; esac
  for ex in softmax_fwd_colsum rmsnorm_bwd layernorm_bwd colmax_rowsum gelu_bwd_bias; do
    ab_text "unf-$ex-${sz//[=,]/_}" "examples/$ex.mlir" "$sz" gpu-unfused 1 --runs 50 --per-kernel $ck
  done
done
finish
