# Issue 11, seventeenth session, call 10: call 9's tuner (one round of coordinate descent)
# did not reach RMSNorm 65536 x 1024's pair partials=resident + interleave-splits=true (call 8:
# 107.7 us), one knob at a time each measured no gain. Start it from partials=resident (the
# cache entry's options set to it, rows in flight kept) and let morf-tune time and check
# interleave-splits; then the row with the result and Inductor in the same call.
set -u
B=.device-bin
T0=$(date +%s)
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json
python3 - $B/h200.json $C <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["entries"]:
    if e["function"] == "rmsnorm_bwd" and e["bucket"] == "M~2^16,N=1024" and e["pipeline"] == "gpu":
        e["options"]["fuse-mixed-reductions"] = "partials=resident"
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
timeout 60 $B/morf-tune examples/rmsnorm_bwd.mlir --sizes M=65536,N=1024 --cache $C --warm-start --knobs interleave-splits --rounds 1 \
  --max-trials 3 --runs 30 --final-runs 50 --json $OUT/json/tune.json > $OUT/logs/tune.txt 2> $OUT/logs/tune.log
echo "tune rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/tune.txt | tail -1)" >> $S
cp $C $OUT/h200.json
timeout 40 $B/morf-bench examples/rmsnorm_bwd.mlir --sizes M=65536,N=1024 --no-check --runs 100 --warmup 10 --tuning-cache $C \
  --json $OUT/json/bench.json > $OUT/logs/bench.txt 2> $OUT/logs/bench.log
echo "== bench rc=$? $(grep -o 'copy: .*' $OUT/logs/bench.log | head -1)" >> $S
grep -E '^\| [0-9]' $OUT/logs/bench.txt >> $S
(cd $B/peers && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=65536x1024:bf16 timeout 60 python3 anchors.py rms) > $OUT/logs/peers-rms.txt 2>&1
grep -E "copy bandwidth|inductor_mix" $OUT/logs/peers-rms.txt | grep -v kernels >> $S
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
