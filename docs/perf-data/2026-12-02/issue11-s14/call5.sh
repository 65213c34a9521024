# Issue 11, fourteenth session, call 5: dw/db of the cluster kernels bitwise over repeated runs
# (morf-run, fresh process each time, same inputs); f32 at N = 32768 (the default takes a
# cluster of 2) against one CTA.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 260 - ($(date +%s) - T0) )); }
pipe() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu$1)"; }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
for ex in rmsnorm_bwd layernorm_bwd; do
  $B/morf-opt examples/$ex.mlir --pipeline gpu --size-hints M=4096,N=32768 -o $OUT/logs/$ex.mlir --schedule-report 2> $OUT/logs/$ex-report.txt
  grep -o "cluster=[0-9]" $OUT/logs/$ex-report.txt | head -1 >> $S
  for r in $(seq 1 20); do
    [ $(left) -lt 120 ] && break
    timeout 30 $B/morf-run $OUT/logs/$ex.mlir --device gpu --random M=4096,N=32768 --seed 7 --output-dir /tmp/det/$ex/$r > /dev/null 2>> $OUT/logs/run-$ex.txt
  done
  for k in 0 1 2; do
    [ -f /tmp/det/$ex/1/result$k.npy ] || continue
    echo "$ex result$k: $(ls /tmp/det/$ex/*/result$k.npy | wc -l) runs, $(md5sum /tmp/det/$ex/*/result$k.npy | cut -d' ' -f1 | sort -u | wc -l) distinct" >> $S
  done
done
bench() { # label example sizes pipeline-options extra...
  l=$1; ex=$2; sz=$3; o=$4; shift 4
  [ $(left) -lt 25 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  if [ -z "$o" ]; then p=gpu; else p="$(pipe "$o")"; fi
  timeout 50 $B/morf-bench examples/$ex.mlir --tuning-cache none --fused-pipeline "$p" --sizes $sz \
    --runs 100 --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us\|check[^,]*' $OUT/logs/$l.txt | head -4 | tr '\n' ' ')" >> $S
}
for ex in rmsnorm_bwd_f32 layernorm_bwd_f32; do
  bench $ex-32768-def $ex M=2048,N=32768 ""
  bench $ex-32768-c1 $ex M=2048,N=32768 "{cluster=1}" --no-check
done
tar czf $OUT/raw.tgz -C $OUT logs json
echo "elapsed $(( $(date +%s) - T0 )) s" >> $S
cat $S
