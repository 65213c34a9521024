# Issue 11, thirty-fifth session, call 2: vectors in flight for the flat partials form
# (`vectors-in-flight` = 1, 2, 4, with `flat-partials=true`) against the row form
# (`flat-partials=false`), gelu_bwd_bias at rows of 7-384 bf16, two rounds; the first round's
# flat runs checked against fp64.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s35/call2.sh
DEADLINE=${DEADLINE:-500} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
F=partials=resident
G=examples/gelu_bwd_bias.mlir
for round in 1 2; do
  ck=""; [ $round = 2 ] && ck=--no-check
  for sz in M=1048576,N=32 M=327680,N=100 M=163840,N=200 M=4194304,N=7 M=2097152,N=17 M=524288,N=64 M=131072,N=384; do
    l=${sz//[=,]/_}
    for u in 1 2 4; do
      bench_pipeline "$l-u$u-r$round" $G $sz "$F" "flat-partials=true vectors-in-flight=$u" --runs 100 $ck
    done
    bench_pipeline "$l-rows-r$round" $G $sz "$F" "flat-partials=false" --runs 100 --no-check
  done
done
finish
