# Issue 11, nineteenth session, call 9: morf-tune from RMSNorm 32768 x 4096's entry over the
# final reduction's knobs and the CTA size (--min-gain 0.3%; checked); the row again.
set -u
B=.device-bin
T0=$(date +%s)
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
timeout 120 $B/morf-tune examples/rmsnorm_bwd.mlir --sizes M=32768,N=4096 --cache $C --warm-start --knobs final-lanes,final,threads,min-ctas \
  --rounds 1 --min-gain 0.003 --max-trials 12 --runs 30 --final-runs 100 --json $OUT/json/tune.json > $OUT/logs/tune.txt 2> $OUT/logs/tune.log
echo "tune rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/tune.txt | tail -1)" >> $S
grep "trial" $OUT/logs/tune.log >> $S
cp $C $OUT/h200.json
for r in 1 2; do
  timeout 60 $B/morf-bench examples/rmsnorm_bwd.mlir --tuning-cache $C --sizes M=32768,N=4096 --sizes M=16384,N=8192 --warmup 10 --runs 100 --no-check > $OUT/logs/b$r.txt 2>&1
  grep -E '^\| [0-9]' $OUT/logs/b$r.txt >> $S
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
