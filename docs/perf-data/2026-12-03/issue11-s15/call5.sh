# Issue 11, fifteenth session, call 5: morf-tune refines the committed cache's RMSNorm
# 576000 x 384 entry over the new knob interleave-splits (fp64-checked winner), then
# morf-bench times the updated cache's program, checked.
set -u
B=.device-bin
mkdir -p $OUT/logs
cp $B/h200.json $OUT/h200.json
timeout 150 $B/morf-tune examples/rmsnorm_bwd.mlir --sizes M=576000,N=384 --cache $OUT/h200.json --warm-start \
  --knobs interleave-splits --max-trials 4 --final-runs 40 > $OUT/logs/tune.txt 2>&1
echo "tune rc=$?"; tail -8 $OUT/logs/tune.txt
timeout 60 $B/morf-bench examples/rmsnorm_bwd.mlir --tuning-cache $OUT/h200.json --sizes M=576000,N=384 --runs 100 \
  --warmup 10 --json $OUT/logs/bench.json > $OUT/logs/bench.txt 2>&1
echo "bench rc=$?"; grep -h "tuned schedule\|check\|median" $OUT/logs/bench.txt | head -6; tail -4 $OUT/logs/bench.txt
