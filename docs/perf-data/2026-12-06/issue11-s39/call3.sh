# Issue 11, thirty-ninth session, call 3: the plan states the run-time split the model priced
# (a row kernel's partials at max(S, rows / resident) of the model, `search_group`), so the
# device's occupancy only lengthens it. main before (1e00a8b, .device-bin/old, "o") against
# this build ("n"), and call 1's build (.device-bin/presnap, "p") at the three shapes of the
# N = 64 family, two rounds each, checked.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s39/call3.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
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
rmsnorm_bwd_f32 M=100003,N=100
rmsnorm_bwd M=8388608,N=2
layernorm_bwd M=16384,N=8192
layernorm_bwd M=32768,N=4096
rmsnorm_bwd M=32768,N=4096
rmsnorm_bwd M=65536,N=1024
layernorm_bwd M=65536,N=1024
layernorm_bwd M=576000,N=384
LIST
for sz in softmax_fwd_colsum:M=262144,N=64 rmsnorm_bwd_f32:M=262144,N=64; do
  OLD=.device-bin/presnap ab_binaries "${sz%%:*}-presnap" "examples/${sz%%:*}.mlir" "${sz#*:}" partials=resident "" 1 --runs 100
done
finish
