# Issue 11, thirty-fifth session, call 7: the final build against call 5's (.device-bin/old),
# alternating: the packed rows' register model with row scalars (two CTAs a SM at N = 9-17
# where one was planned, the norms and gelu_bwd_bias), and the flat partials loop chunk by
# chunk under its planned CTAs (gelu_bwd_bias N = 32, 100, 384); then compute-sanitizer of the
# new kernels at odd shapes and the new defaults checked against fp64.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s35/call7.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
F=partials=resident
for n in 17 14 9 3 20; do
  m=$(( 33554432 / n ))
  ab_binaries rms-n$n examples/rmsnorm_bwd.mlir M=$m,N=$n "$F" "" 1 --runs 100 --no-check
  ab_binaries ln-n$n examples/layernorm_bwd.mlir M=$m,N=$n "$F" "" 1 --runs 100 --no-check
done
G=examples/gelu_bwd_bias.mlir
for sz in M=2097152,N=17 M=4194304,N=7 M=8388608,N=2 M=1048576,N=32 M=327680,N=100 M=131072,N=384; do
  ab_binaries "gelu-${sz//[=,]/_}" $G $sz "$F" "" 1 --runs 100 --no-check
done
for sz in M=1048576,N=32 M=327680,N=100 M=131072,N=384 M=2097152,N=17; do
  bench_pipeline "check-gelu-${sz//[=,]/_}" $G $sz "$F" "" --runs 20
done
bench_pipeline check-rms14 examples/rmsnorm_bwd.mlir M=2396745,N=14 "$F" "" --runs 20
bench_pipeline check-ln9 examples/layernorm_bwd.mlir M=3728270,N=9 "$F" "" --runs 20
P() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=$1 $2})"; }
sanitize_text flat100 $G M=100003,N=100 "$(P M=327680,N=100 "")"
sanitize_text flat32 $G M=1001,N=32 "$(P M=1048576,N=32 "")"
sanitize_text rms14 examples/rmsnorm_bwd.mlir M=100003,N=14 "$(P M=2396745,N=14 "")"
finish
