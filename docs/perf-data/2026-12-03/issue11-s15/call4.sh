# Issue 11, fifteenth session, call 4: interleave-splits on shapes outside the table (the
# gpu pipeline's defaults spelled out), alternating.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 300 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{interleave-splits=$1})"; }
for e in rmsnorm_bwd layernorm_bwd; do
  for sz in M=32768,N=768 M=131072,N=256 M=1000000,N=256 M=262144,N=768 M=576000,N=384; do
    for il in false true false true; do
      [ $(left) -lt 20 ] && break
      l=$e-${sz//[=,]/_}-$il
      timeout 30 $B/morf-bench examples/$e.mlir --tuning-cache none --fused-pipeline "$(tp $il)" --sizes $sz \
        --warmup 10 --runs 100 --no-check --json $OUT/json/$l.json >> $OUT/logs/$l.txt 2>&1
      echo "$e $sz $il: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | tail -1)" >> $S
    done
  done
done
cd $OUT && tar czf raw.tgz logs json; cd - >/dev/null
cat $S
