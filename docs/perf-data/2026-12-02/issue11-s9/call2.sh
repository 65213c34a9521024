#!/usr/bin/env bash
# Call 2: tune the remaining rows (deadline), then morf-bench with the cache (+unfused) and Inductor defaults.
mkdir -p $OUT/t2/logs; cp .device-bin/h200-call1.json $OUT/h200.json; T0=$SECONDS
t() { f=$1; s=$2; l=$f-${s//[=,]/_}; [ $((SECONDS-T0)) -gt ${TUNE_S:-330} ] && { echo "SKIP $l"; return; }
 timeout 80 .device-bin/morf-tune examples/$f.mlir --sizes $s --cache $OUT/h200.json --knobs splits,threads,rows-in-flight,staged-rows,min-ctas,final --rounds 1 --max-trials 22 --runs 20 --final-runs 40 --json $OUT/t2/tune-$l.json > $OUT/t2/logs/$l.txt 2> $OUT/t2/logs/$l.log; echo "== $l rc=$? t=$((SECONDS-T0))"; tail -1 $OUT/t2/logs/$l.txt; }
t rmsnorm_bwd M=576000,N=384; t layernorm_bwd M=576000,N=384; t layernorm_bwd M=65536,N=1024; t rmsnorm_bwd M=32768,N=4096
t layernorm_bwd M=32768,N=4096; t layernorm_bwd M=16384,N=8192; t rmsnorm_bwd_f32 M=576000,N=384; t layernorm_bwd_f32 M=576000,N=384
echo "== tune done t=$((SECONDS-T0))"
for f in rmsnorm_bwd layernorm_bwd; do
  [ $((SECONDS-T0)) -gt 470 ] && { echo "SKIP bench $f"; continue; }
  timeout 60 .device-bin/morf-bench examples/$f.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --unfused --no-check --runs 100 --warmup 10 --tuning-cache $OUT/h200.json --json $OUT/t2/bench-$f.json > $OUT/t2/bench-$f.txt 2> $OUT/t2/logs/bench-$f.log
  echo "== bench $f rc=$? t=$((SECONDS-T0))"; cat $OUT/t2/bench-$f.txt | head -8
done
for op in rms ln; do
  [ $((SECONDS-T0)) -gt 520 ] && { echo "SKIP peers $op"; continue; }
  (cd .device-bin/peers && ONLY_INDUCTOR=1 timeout 70 python3 anchors.py $op) > $OUT/t2/peers-$op.txt 2> $OUT/t2/logs/peers-$op.log
  echo "== peers $op rc=$? t=$((SECONDS-T0))"; cat $OUT/t2/peers-$op.txt | tail -12
done
