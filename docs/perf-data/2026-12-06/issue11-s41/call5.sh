# Issue 11, forty-first session, call 5: the session's final build (.device-bin/s41: split-K
# rows in flight, reciprocals, the split-K final in its own launch again, the unit split's
# `div 1` restored) against 8ead763's modules (.device-bin): two_norms_shared_weight with
# K = 64, whose second norm now lowers as a row kernel instead of loop-map's mapped fallback,
# at five shapes; logsoftmax_bwd_colsum at N = 17 (its standalone split-K's code); the unfused
# rmsnorm_bwd and colmax_rowsum at 8388608 x 3 and 65536 x 200 (per kernel).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s41/call5.sh
export OLD=.device-bin B=.device-bin/s41
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ab_list --runs 100 <<'LIST'
two_norms_shared_weight M=4096,K=64,N=16384
two_norms_shared_weight M=65536,K=64,N=1024
two_norms_shared_weight M=576000,K=64,N=384
two_norms_shared_weight M=65536,K=64,N=200
two_norms_shared_weight M=32768,K=64,N=768
logsoftmax_bwd_colsum M=2097152,N=17
LIST
for sz in M=8388608,N=3 M=65536,N=200; do
  for ex in rmsnorm_bwd colmax_rowsum; do
    ab_text "unf-$ex-${sz//[=,]/_}" "examples/$ex.mlir" "$sz" gpu-unfused 1 --runs 50 --per-kernel --no-check
  done
done
finish
