# Issue 11, fifteenth session, call 2: one cluster barrier per row reduction (alternating slot
# halves) against two (.device-bin/old, the fourteenth session's protocol), same call;
# fp64 checks; compute-sanitizer; dw/db bitwise over fresh processes; 100000 x 32768.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 545 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
bench() { # label binary-dir example sizes pipeline-options timeout extra...
  l=$1; bd=$2; ex=$3; sz=$4; o=$5; to=$6; shift 6
  [ $(left) -lt $(( to / 2 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  if [ -z "$o" ]; then p=gpu; else p="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu$o)"; fi
  timeout $to $bd/morf-bench examples/$ex.mlir --tuning-cache none --fused-pipeline "$p" --sizes $sz \
    --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us\|check[^,]*\|[0-9.]*% |' $OUT/logs/$l.txt | head -4 | tr '\n' ' ')" >> $S
}
for ex in rmsnorm_bwd layernorm_bwd; do
  bench $ex-32768-new $B $ex M=8192,N=32768 "" 60 --runs 100
  bench $ex-32768-old $B/old $ex M=8192,N=32768 "" 60 --runs 100 --no-check
  bench $ex-32768-new2 $B $ex M=8192,N=32768 "" 60 --runs 100 --no-check
  bench $ex-16384-c2-new $B $ex M=4096,N=16384 "{cluster=2}" 60 --runs 100
  bench $ex-16384-c2-old $B/old $ex M=4096,N=16384 "{cluster=2}" 60 --runs 100 --no-check
  bench $ex-16384-c1 $B $ex M=4096,N=16384 "" 60 --runs 100 --no-check
  bench ${ex}_f32-32768-new $B ${ex}_f32 M=2048,N=32768 "" 60 --runs 100
  bench ${ex}_f32-32768-old $B/old ${ex}_f32 M=2048,N=32768 "" 60 --runs 100 --no-check
done
# compute-sanitizer on the new cluster kernels (GPU-level IR from morf-opt).
for ex in rmsnorm_bwd layernorm_bwd; do
  [ $(left) -lt 200 ] && break
  $B/morf-opt examples/$ex.mlir --pipeline gpu --size-hints M=64,N=32768 -o $OUT/logs/$ex-c2.mlir 2>> $OUT/logs/opt.txt
  grep -c "cluster_store" $OUT/logs/$ex-c2.mlir >> $S
  for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool $B/morf-run $OUT/logs/$ex-c2.mlir --device gpu --random M=64,N=32768 --output-dir /tmp/o > $OUT/logs/san-$ex-$tool.txt 2>&1
    echo "sanitizer $ex $tool rc=$?: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY\|hazard' $OUT/logs/san-$ex-$tool.txt | head -2 | tr '\n' ' ')" >> $S
  done
done
# dw (and db) bitwise over fresh processes on the same inputs.
for ex in rmsnorm_bwd layernorm_bwd; do
  $B/morf-opt examples/$ex.mlir --pipeline gpu --size-hints M=1024,N=32768 -o $OUT/logs/$ex-det.mlir 2>> $OUT/logs/opt.txt
  for r in $(seq 1 25); do
    [ $(left) -lt 150 ] && break
    timeout 30 $B/morf-run $OUT/logs/$ex-det.mlir --device gpu --random M=1024,N=32768 --seed 7 --output-dir /tmp/det/$ex/$r > /dev/null 2>> $OUT/logs/run-$ex.txt
  done
  for k in 0 1 2; do
    [ -f /tmp/det/$ex/1/result$k.npy ] || continue
    echo "$ex result$k: $(ls /tmp/det/$ex/*/result$k.npy | wc -l) runs, $(md5sum /tmp/det/$ex/*/result$k.npy | cut -d' ' -f1 | sort -u | wc -l) distinct" >> $S
  done
done
bench rms-100000x32768 $B rmsnorm_bwd M=100000,N=32768 "" 140 --no-check --runs 30
cd $OUT && tar czf raw.tgz logs json; cd - >/dev/null
echo "elapsed $(( $(date +%s) - T0 )) s" >> $S
cat $S
