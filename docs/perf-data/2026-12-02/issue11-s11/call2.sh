#!/usr/bin/env bash
# Session 11 call 2: morf-tune on the eight bf16 benchmark rows with the new knob `partials`
# (a split sized at run time) beside splits, threads-per-row (several rows a warp),
# rows-in-flight and staged-rows; one round of coordinate descent, winners checked against
# fp64. The cache starts as the committed one; it is left in /tmp for call 3 and returned.
set -u
T0=$SECONDS
C=/tmp/h200-s11.json; cp runtime/engine/src/tuning/h200.json $C; chmod u+w $C
mkdir -p $OUT/logs $OUT/json
t() { # file sizes knobs trials
    local f=$1 s=$2 k=$3 n=$4 l=$1-${2//[=,]/_}
    if [ $((SECONDS-T0)) -gt ${DEADLINE:-470} ]; then echo "SKIPPED $l (deadline)"; return; fi
    timeout 110 .device-bin/morf-tune examples/$f.mlir --sizes $s --cache $C --knobs $k --rounds 1 --max-trials $n \
        --runs 20 --final-runs 40 --json $OUT/json/tune-$l.json >$OUT/logs/tune-$l.txt 2>$OUT/logs/tune-$l.log
    echo "== $l rc=$? t=$((SECONDS-T0))"; grep -E '^\| M' $OUT/logs/tune-$l.txt | tail -1
}
ROW=splits,partials,threads-per-row,rows-in-flight,staged-rows
t rmsnorm_bwd M=576000,N=384 $ROW 24
t layernorm_bwd M=576000,N=384 $ROW 24
t rmsnorm_bwd M=65536,N=1024 splits,partials,rows-in-flight,staged-rows 16
t layernorm_bwd M=65536,N=1024 splits,partials,rows-in-flight,staged-rows 16
for f in rmsnorm_bwd layernorm_bwd; do
    for s in M=32768,N=4096 M=16384,N=8192; do t $f $s splits,partials,threads,staged-rows 16; done
done
cp $C $OUT/h200.json
tar czf $OUT/raw.tgz -C $OUT logs json && rm -rf $OUT/logs $OUT/json
