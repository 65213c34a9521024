# Issue 11, sixteenth session, call 5: call 1's RMSNorm tune stopped at 3 trials before it timed
# interleave-splits=true; again with room for it (from call 1's cache), then LayerNorm
# 100000 x 32768 (a cluster per row: one cluster round trip a row for its two row sums now).
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 545 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
l=tune-rmsnorm_bwd-M_576000_N_384
timeout 150 $B/morf-tune examples/rmsnorm_bwd.mlir --sizes M=576000,N=384 --cache $C --warm-start --knobs interleave-splits --rounds 1 \
  --max-trials 6 --runs 30 --final-runs 50 --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
echo "$l rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/$l.txt | tail -1)" >> $S
grep -o "trial [0-9]*: .*" $OUT/logs/$l.log | cut -c1-150 >> $S
cp $C $OUT/h200.json
if [ $(left) -gt 200 ]; then
  l=ln-100000x32768
  timeout $(( $(left) - 20 )) $B/morf-bench examples/layernorm_bwd.mlir --sizes M=100000,N=32768 --no-check --runs 30 --warmup 5 \
    --json $OUT/json/$l.json > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
fi
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
