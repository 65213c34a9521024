# Issue 11, forty-first session, call 4 (run right after call 3, on the same warm H100): the
# split-K final in the partial's grid against its own launch, in this session's build
# (.device-bin/s41, where the merge was then the default): the unfused rmsnorm_bwd and
# colmax_rowsum at 8388608 x 3 (where call 3 found the programs 16-30% slower) and 65536 x 200.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s41/call4.sh
export B=.device-bin/s41
DEADLINE=200 . tools/scripts/device-call.sh
P='builtin.module(lower-tensor-to-loop,canonicalize,cse,loop-coalesce{ops=reductions},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{final=launch})'
for ex in rmsnorm_bwd colmax_rowsum; do
  for sz in M=8388608,N=3 M=65536,N=200; do
    bench_text "fl-$ex-${sz//[=,]/_}" examples/$ex.mlir $sz "$P" --runs 50 --per-kernel --no-check
    bench_text "fg-$ex-${sz//[=,]/_}" examples/$ex.mlir $sz gpu-unfused --runs 50 --per-kernel --no-check
  done
done
finish
