# Issue 11, twentieth session, call 7: morf-tune from the committed entries (warm start, one
# round, every knob, recipes, min-gain 0.5%, fp64 check) of the rows closest to their targets:
# RMSNorm 32768 x 4096 (92.0%), LayerNorm 576000 x 384 (91.8%), LayerNorm 32768 x 4096 (88.5%)
# and RMSNorm 65536 x 1024 (88%). The cache copy with any winners comes back as h200.json.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 470 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
tune() { # example sizes trials timeout
  local e=$1 s=$2 n=$3 to=$4 l=tune-$1-${2//[=,]/_}
  [ $(left) -lt $(( to + 5 )) ] && to=$(( $(left) - 5 ))
  [ $to -lt 30 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout $to $B/morf-tune examples/$e.mlir --sizes $s --cache $C --warm-start --rounds 1 --min-gain 0.005 \
    --max-trials $n --runs 30 --final-runs 50 --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "$l rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/$l.txt | tail -1)" >> $S
  cp $C $OUT/h200.json
}
tune rmsnorm_bwd M=32768,N=4096 40 140
tune layernorm_bwd M=576000,N=384 40 150
tune layernorm_bwd M=32768,N=4096 40 140
tune rmsnorm_bwd M=65536,N=1024 40 120
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
