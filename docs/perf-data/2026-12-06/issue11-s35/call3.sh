# Issue 11, thirty-fifth session, call 3: the flat partials kernel's grid capped at the CTAs
# the device holds at once (mgpu.resident_blocks), vectors in flight 1, 2, 4 against the row
# form, gelu_bwd_bias at rows of 32-384 bf16, two rounds (the first round's flat runs checked).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s35/call3.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
F=partials=resident
G=examples/gelu_bwd_bias.mlir
for round in 1 2; do
  ck=""; [ $round = 2 ] && ck=--no-check
  for sz in M=1048576,N=32 M=327680,N=100 M=163840,N=200 M=131072,N=384 M=100003,N=100; do
    l=${sz//[=,]/_}
    for u in 1 2 4; do
      bench_pipeline "$l-u$u-r$round" $G $sz "$F" "flat-partials=true vectors-in-flight=$u" --runs 100 $ck
    done
  done
done
bench_pipeline tanh3d-flat .device-bin/programs/tanh_bwd_bias_3d.mlir B=64,T=1024,N=1024 "$F" "flat-partials=true" --runs 100
bench_pipeline tanh3d-rows .device-bin/programs/tanh_bwd_bias_3d.mlir B=64,T=1024,N=1024 "$F" "flat-partials=false" --runs 100 --no-check
finish
