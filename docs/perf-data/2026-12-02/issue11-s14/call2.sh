# Issue 11, fourteenth session, call 2: the cluster heuristic (CTA_ROW_BYTES) on f32 rows, morf-tune
# over the cluster schedules at N = 32768, and RMSNorm at 100000 x 32768.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 545 - ($(date +%s) - T0) )); }
pipe() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu$1)"; }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
bench() { # label example sizes pipeline-options timeout extra...
  l=$1; ex=$2; sz=$3; o=$4; to=$5; shift 5
  [ $(left) -lt $(( to / 2 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  if [ -z "$o" ]; then p=gpu; else p="$(pipe "$o")"; fi
  timeout $to $B/morf-bench examples/$ex.mlir --tuning-cache none --fused-pipeline "$p" --sizes $sz \
    --runs 100 --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  rc=$?
  echo "$l rc=$rc: $(grep -o 'median [0-9.]* us\|check[^,]*' $OUT/logs/$l.txt | head -4 | tr '\n' ' ')" >> $S
}
for ex in rmsnorm_bwd_f32 layernorm_bwd_f32; do
  for sz in M=2048,N=12288 M=4096,N=16384; do
    bench $ex-$sz-def $ex $sz "" 60
    bench $ex-$sz-c1 $ex $sz "{cluster=1}" 60 --no-check
  done
done
for ex in rmsnorm_bwd layernorm_bwd; do
  [ $(left) -lt 150 ] && break
  timeout 110 $B/morf-tune examples/$ex.mlir --sizes M=8192,N=32768 --cache $OUT/tune.json \
    --knobs cluster,threads,staged-rows,reload,shared-accs,min-ctas --rounds 1 --max-trials 12 --runs 20 --final-runs 20 \
    --json $OUT/json/tune-$ex.json > $OUT/logs/tune-$ex.txt 2>&1
  echo "tune $ex rc=$?: $(tail -3 $OUT/logs/tune-$ex.txt | tr '\n' ' ')" >> $S
done
bench rms-100000x32768 rmsnorm_bwd M=100000,N=32768 "" 200 --no-check --runs 30 --warmup 3
tar czf $OUT/raw.tgz -C $OUT logs json
echo "elapsed $(( $(date +%s) - T0 )) s" >> $S
cat $S
