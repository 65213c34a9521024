# Issue 11, forty-sixth session, call 5: two rows in flight a thread instead of four in the
# split-K partial of a heavy body (an experiment build, 0a241be plus an environment switch
# MORF_EXP_HEAVY=T in `vector_forms::block_unroll`: bodies of T or more estimated
# instructions a point unroll by 2). softmax_fwd_colsum's column sum: 80 registers and 3 CTAs
# a SM with four, 64 and 4 CTAs a SM with two (ptxas). The unfused programs, per kernel, two
# rounds (the experiment checked in round 1).
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s46/call5.sh
DEADLINE=${DEADLINE:-100} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for r in 1 2; do
  for sz in M=65536,N=1024 M=576000,N=384 M=65536,N=200; do
    l=u2-${sz//[=,]/_}
    ck=--no-check; [ $r = 1 ] && ck=""
    bench_text "$l-four$r" examples/softmax_fwd_colsum.mlir "$sz" gpu-unfused --runs 50 --per-kernel --no-check; kernels "$l-four$r"
    MORF_EXP_HEAVY=10 bench_text "$l-two$r" examples/softmax_fwd_colsum.mlir "$sz" gpu-unfused --runs 50 --per-kernel $ck; kernels "$l-two$r"
  done
done
finish
