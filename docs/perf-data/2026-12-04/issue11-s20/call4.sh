# Issue 11, twentieth session, call 4: the table again with the 16-byte workspace stores back
# (the committed cache, Inductor's default in the same call), the shapes outside the table
# untuned, then morf-tune (from the untuned default, no cache entry) on two small shapes short
# of 80%, RMSNorm 32768 x 768 and 131072 x 256, to learn what the schedule space reaches there.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 570 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
bench() { # label file sizes...
  local l=$1 f=$2; shift 2
  [ $(left) -lt 60 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 90 $B/morf-bench $f "$@" --no-check --runs 100 --warmup 10 --tuning-cache $C --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "== $l rc=$? t=$(( $(date +%s) - T0 )) $(grep -o 'copy: .*' $OUT/logs/$l.log | head -1)" >> $S
  grep -E '^\| [0-9]' $OUT/logs/$l.txt >> $S
}
bench bench-rms examples/rmsnorm_bwd.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=4096,N=16384
bench bench-ln examples/layernorm_bwd.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=4096,N=16384
for op in rms ln; do
  [ $(left) -lt 200 ] && { echo "peers $op: skipped (deadline)" >> $S; continue; }
  sh=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16
  (cd $B/peers && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=$sh timeout 100 python3 anchors.py $op) > $OUT/logs/peers-$op.txt 2>&1
  echo "== Inductor default $op rc=$? t=$(( $(date +%s) - T0 ))" >> $S
  grep -E "copy bandwidth|inductor_mix" $OUT/logs/peers-$op.txt | grep -v kernels >> $S
done
bench out-rms examples/rmsnorm_bwd.mlir --sizes M=8192,N=8192 --sizes M=32768,N=768 --sizes M=131072,N=256 --sizes M=65536,N=2048
bench out-ln examples/layernorm_bwd.mlir --sizes M=8192,N=8192 --sizes M=32768,N=768 --sizes M=65536,N=2048
T=/tmp/tune.json; rm -f $T
tune() { # example sizes trials timeout
  local e=$1 s=$2 n=$3 to=$4 l=tune-$1-${2//[=,]/_}
  [ $(left) -lt $(( to + 10 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout $to $B/morf-tune examples/$e.mlir --sizes $s --cache $T --rounds 1 --min-gain 0.005 \
    --max-trials $n --runs 30 --final-runs 50 --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "$l rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/$l.txt | tail -1)" >> $S
}
tune rmsnorm_bwd M=32768,N=768 40 $(( ($(left) - 20) / 2 ))
tune rmsnorm_bwd M=131072,N=256 40 $(( $(left) - 20 ))
cp $T $OUT/tune.json
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
