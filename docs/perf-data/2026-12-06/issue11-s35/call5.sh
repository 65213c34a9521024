# Issue 11, thirty-fifth session, call 5: the new defaults (flat partials up to 1023-byte rows,
# two vectors in flight, one wave of equal shares) on gelu_bwd_bias, checked; the norms' odd
# rows of 17 and 31 (warp-transposed packed rows, 156-252 registers, one CTA a SM) with
# min-ctas 2 and 3 against the default; compute-sanitizer of the flat partials at odd shapes.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s35/call5.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
F=partials=resident
G=examples/gelu_bwd_bias.mlir
for sz in M=1048576,N=32 M=327680,N=100 M=163840,N=200 M=131072,N=384; do
  bench_pipeline "gelu-${sz//[=,]/_}" $G $sz "$F" "" --runs 100
done
for ex in rmsnorm_bwd layernorm_bwd; do
  for sz in M=2097152,N=17 M=1048576,N=31; do
    for mc in 0 2 3; do
      bench_pipeline "$ex-${sz//[=,]/_}-mc$mc" examples/$ex.mlir $sz "$F" "min-ctas=$mc" --runs 100 --no-check
    done
  done
done
P() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=$1 $2})"; }
sanitize_text flat100 $G M=100003,N=100 "$(P M=327680,N=100 "")"
sanitize_text flat32 $G M=1001,N=32 "$(P M=1048576,N=32 "")"
sanitize_text flat384u4 $G M=1003,N=384 "$(P M=131072,N=384 "vectors-in-flight=4")"
finish
