# Issue 11, seventeenth session, call 9: morf-tune refines the committed cache's entries with
# interleave-splits (call 8: -2% and -3% at 65536 x 1024 with the run-time split; also tried
# for the CTA-per-row rows), checked against fp64; then the table's rows with the refined cache
# and Inductor's defaults in the same call.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 420 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
tune() { # example sizes knobs trials timeout
  local e=$1 s=$2 k=$3 n=$4 to=$5 l=tune-$1-${2//[=,]/_}
  [ $(left) -lt $(( to + 190 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout $to $B/morf-tune examples/$e.mlir --sizes $s --cache $C --warm-start --knobs $k --rounds 1 \
    --max-trials $n --runs 30 --final-runs 50 --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "$l rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/$l.txt | tail -1)" >> $S
}
tune rmsnorm_bwd M=65536,N=1024 interleave-splits,partials 6 80
tune layernorm_bwd M=65536,N=1024 interleave-splits,partials 6 80
tune rmsnorm_bwd M=32768,N=4096 interleave-splits 2 50
tune layernorm_bwd M=32768,N=4096 interleave-splits 2 50
tune rmsnorm_bwd M=16384,N=8192 interleave-splits 2 50
tune layernorm_bwd M=16384,N=8192 interleave-splits 2 50
cp $C $OUT/h200.json
for e in rmsnorm_bwd layernorm_bwd; do
  l=bench-$e
  [ $(left) -lt 110 ] && { echo "$l: skipped (deadline)" >> $S; continue; }
  timeout 90 $B/morf-bench examples/$e.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 \
    --sizes M=16384,N=8192 --no-check --runs 100 --warmup 10 --tuning-cache $C --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "== $l rc=$? t=$(( $(date +%s) - T0 )) $(grep -o 'copy: .*' $OUT/logs/$l.log | head -1)" >> $S
  grep -E '^\| [0-9]' $OUT/logs/$l.txt >> $S
done
for op in rms ln; do
  [ $(left) -lt 50 ] && { echo "peers $op: skipped (deadline)" >> $S; continue; }
  (cd $B/peers && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16 \
    timeout $(( $(left) - 10 )) python3 anchors.py $op) > $OUT/logs/peers-$op.txt 2>&1
  echo "== Inductor default $op rc=$? t=$(( $(date +%s) - T0 ))" >> $S
  grep -E "copy bandwidth|inductor_mix" $OUT/logs/peers-$op.txt | grep -v kernels >> $S
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
