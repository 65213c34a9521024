# Issue 11, thirty-fifth session, call 6: (a) the packed rows' register model (hoisted vectors
# and partials counted once, 16-bit rows at 85%): two CTAs a SM where one was planned (N = 5-20)
# and 3-4 where two were; the build before it (.device-bin/old, call 5's) against this one,
# alternating, the norms' backward at rows of 3-20; (b) the flat partials loop emitted chunk
# by chunk (two vectors in flight: 48-56 registers, no spill) under min-ctas none, 3, 4, 5
# against one vector in flight.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s35/call6.sh
DEADLINE=${DEADLINE:-440} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
F=partials=resident
for n in 17 7 5 9 14 20 3; do
  m=$(( 33554432 / n ))
  ab_binaries rms-n$n examples/rmsnorm_bwd.mlir M=$m,N=$n "$F" "" 1 --runs 100 --no-check
  ab_binaries ln-n$n examples/layernorm_bwd.mlir M=$m,N=$n "$F" "" 1 --runs 100 --no-check
done
ab_binaries sbc-n7 examples/softmax_bwd_colsum.mlir M=4194304,N=7 "$F" "" 1 --runs 100 --no-check
G=examples/gelu_bwd_bias.mlir
for sz in M=1048576,N=32 M=327680,N=100 M=131072,N=384; do
  l=${sz//[=,]/_}
  bench_pipeline "$l-u1" $G $sz "$F" "vectors-in-flight=1" --runs 100
  for mc in 0 none 3 4 5; do
    bench_pipeline "$l-u2-mc$mc" $G $sz "$F" "min-ctas=$mc" --runs 100 --no-check
  done
done
bench_pipeline rms17-check examples/rmsnorm_bwd.mlir M=2097152,N=17 "$F" "" --runs 20
bench_pipeline ln7-check examples/layernorm_bwd.mlir M=4194304,N=7 "$F" "" --runs 20
finish
