# Issue 11, thirty-ninth session, call 2: call 1's shapes that moved by more than 1.5% in its
# one round, two more rounds each (same builds: 1e00a8b as "o", this build as "n"), checked.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s39/call2.sh
DEADLINE=${DEADLINE:-300} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r ex sz; do
  ab_binaries "$ex-${sz//[=,]/_}" "examples/$ex.mlir" "$sz" partials=resident "" 2 --runs 100
done <<'LIST'
softmax_fwd_colsum M=262144,N=64
rmsnorm_bwd_f32 M=262144,N=64
softmax_bwd_colsum M=262144,N=64
layernorm_bwd M=8388608,N=3
colmax_rowsum M=65536,N=200
logsoftmax_bwd_colsum M=100003,N=100
layernorm_bwd_f32 M=100003,N=100
rmsnorm_bwd_f32 M=100003,N=100
softmax_bwd_colsum M=100003,N=100
rmsnorm_bwd M=8388608,N=2
LIST
finish
