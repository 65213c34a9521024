# Issue 11, twenty-first session, call 4: morf-tune with the new recipe (a CTA per row that
# reloads its row from three staged rows, partials in registers) and the staged-rows value 3,
# from the cache of call 1 (its two small-shape entries dropped), warm start, one round,
# every knob and recipe, fp64 check: LayerNorm 4096 x 16384 (no entry), 16384 x 8192 and
# 32768 x 4096. The cache copy with any winners comes back as h200.json.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 330 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
tune() { # example sizes timeout extra-args...
  local e=$1 s=$2 to=$3 l=tune-$1-${2//[=,]/_}; shift 3
  [ $(left) -lt $(( to + 5 )) ] && to=$(( $(left) - 5 ))
  [ $to -lt 20 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout $to $B/morf-tune examples/$e.mlir --sizes $s --cache $C --rounds 1 --min-gain 0.005 \
    --runs 30 --final-runs 50 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "$l rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/$l.txt | tail -1)" >> $S
  cp $C $OUT/h200.json
}
tune layernorm_bwd M=4096,N=16384 130 --warm-start --max-trials 40
tune layernorm_bwd M=16384,N=8192 100 --warm-start --max-trials 30
tune layernorm_bwd M=32768,N=4096 100 --warm-start --max-trials 30
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
