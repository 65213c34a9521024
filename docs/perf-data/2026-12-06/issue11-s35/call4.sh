# Issue 11, thirty-fifth session, call 4: flat partials with an equal share of rows a CTA
# (a multiple of the vector), partial row = CTA, grid capped at the CTAs resident; vectors in
# flight 1 against 2; the row form at N = 384 and 512; ncu of N = 100 at 1 and 2 in flight.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s35/call4.sh
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
F=partials=resident
G=examples/gelu_bwd_bias.mlir
for round in 1 2; do
  ck=""; [ $round = 2 ] && ck=--no-check
  for sz in M=1048576,N=32 M=327680,N=100 M=163840,N=200 M=131072,N=384 M=100003,N=100 M=65536,N=512; do
    l=${sz//[=,]/_}
    for u in 1 2; do
      bench_pipeline "$l-u$u-r$round" $G $sz "$F" "flat-partials=true vectors-in-flight=$u" --runs 100 $ck
    done
  done
  bench_pipeline "n384-rows-r$round" $G M=131072,N=384 "$F" "flat-partials=false" --runs 100 --no-check
  bench_pipeline "n512-rows-r$round" $G M=65536,N=512 "$F" "flat-partials=false" --runs 100 --no-check
done
P() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=$1 $2})"; }
for u in 1 2; do
  sz=M=327680,N=100
  "$B/morf-opt" $G --pass-pipeline "$(P $sz "flat-partials=true vectors-in-flight=$u")" -o "$OUT/logs/n100u$u.mlir" 2>> "$OUT/logs/opt.txt"
  timeout 60 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats -k "regex:gelu_bwd_bias_k0" --launch-count 1 \
    "$B/morf-run" "$OUT/logs/n100u$u.mlir" --device gpu --random "$sz" --output-dir /tmp/ncu-$u > "$OUT/logs/ncu-n100u$u.txt" 2>&1
  echo "ncu n100 u=$u rc=$?: $(grep -E 'DRAM Throughput|Achieved Occupancy|Registers Per|Duration|Issue Slots Busy|Grid Size|Block Limit Reg|Warp Cycles Per Issued' "$OUT/logs/ncu-n100u$u.txt" | tr -s ' ' | tr '\n' ';')" >> "$S"
done
finish
