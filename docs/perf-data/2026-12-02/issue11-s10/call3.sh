#!/usr/bin/env bash
# Session 10 call 3: staged rows beside shared partials on the bf16 rows it can serve, tuned
# (splits, rows-in-flight, staged-rows), then morf-bench with the cache and Inductor's defaults.
set -u
t0=$SECONDS
C=/tmp/h200.json; cp .device-bin/h200-s10.json $C; chmod u+w $C
mkdir -p $OUT/logs
for f in rmsnorm_bwd layernorm_bwd; do
  for s in M=576000,N=384 M=65536,N=1024; do
    l=$f-${s//[=,]/_}
    timeout 80 .device-bin/morf-tune examples/$f.mlir --sizes $s --cache $C --knobs splits,rows-in-flight,staged-rows \
      --rounds 2 --max-trials 14 --runs 20 --final-runs 40 --json $OUT/tune-$l.json >$OUT/logs/tune-$l.txt 2>$OUT/logs/tune-$l.log
    echo "== tune $l rc=$? t=$((SECONDS-t0))"; grep -E '^\|' $OUT/logs/tune-$l.txt | tail -1
  done
done
cp $C $OUT/h200.json
for f in rmsnorm_bwd layernorm_bwd; do
  timeout 90 .device-bin/morf-bench examples/$f.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --runs 100 --warmup 10 \
    --tuning-cache $C --json $OUT/bench-$f.json >$OUT/logs/bench-$f.txt 2>$OUT/logs/bench-$f.log
  echo "== bench $f rc=$? t=$((SECONDS-t0))"; cat $OUT/logs/bench-$f.txt; grep -E "check|tuned schedule" $OUT/logs/bench-$f.log | head -8
done
for op in rms ln; do
  if [ $((SECONDS-t0)) -gt 390 ]; then echo "SKIPPED peers $op (deadline)"; continue; fi
  (cd .device-bin/peers && ONLY_INDUCTOR=1 SHAPES=576000x384:bf16,65536x1024:bf16 timeout 110 python3 anchors.py $op) >$OUT/peers-$op.txt 2>$OUT/logs/peers-$op.log
  echo "== Inductor default $op rc=$? t=$((SECONDS-t0))"; cat $OUT/peers-$op.txt | tail -12
done
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $OUT/logs
