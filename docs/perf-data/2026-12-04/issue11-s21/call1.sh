# Issue 11, twenty-first session, call 1: time `contract-fma` (f32 add/sub/mul without .rn, so
# ptxas fuses multiply-adds), assembled but never timed in the twentieth session. morf-tune
# from each committed entry (warm start), the one knob `contract-fma`, no recipes, fp64 check:
# the cached schedule against the same schedule with contract-fma=true, on the rows short of
# their targets and the rows met. Then a full one-round tune of LayerNorm 16384 x 8192 (no
# entry yet) with every knob and recipe, and contract-fma alone on two small untuned shapes.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 520 - ($(date +%s) - T0) )); }
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
for r in layernorm_bwd:M=32768,N=4096 rmsnorm_bwd:M=65536,N=1024 layernorm_bwd:M=65536,N=1024 \
         layernorm_bwd:M=4096,N=16384 rmsnorm_bwd:M=4096,N=16384 rmsnorm_bwd:M=32768,N=4096 \
         rmsnorm_bwd:M=16384,N=8192 layernorm_bwd:M=576000,N=384 rmsnorm_bwd:M=576000,N=384; do
  tune ${r%%:*} ${r#*:} 60 --warm-start --knobs contract-fma --no-recipes --max-trials 4
done
tune layernorm_bwd M=16384,N=8192 150 --warm-start --max-trials 40
tune layernorm_bwd M=32768,N=768 40 --knobs contract-fma --no-recipes --max-trials 4
tune rmsnorm_bwd M=131072,N=256 40 --knobs contract-fma --no-recipes --max-trials 4
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
