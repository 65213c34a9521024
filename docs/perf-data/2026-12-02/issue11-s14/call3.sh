# Issue 11, fourteenth session, call 3: cluster grids sized by cuOccupancyMaxActiveClusters;
# N = 32768 (the default now takes a cluster of 2), N = 16384 with clusters again, 100000 x 32768.
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
    --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  rc=$?
  echo "$l rc=$rc: $(grep -o 'median [0-9.]* us\|check[^,]*\|[0-9.]*% |' $OUT/logs/$l.txt | head -5 | tr '\n' ' ')" >> $S
}
for ex in rmsnorm_bwd layernorm_bwd; do
  bench $ex-32768 $ex M=8192,N=32768 "" 60 --runs 100
  bench $ex-32768-pk $ex M=8192,N=32768 "" 60 --runs 100 --per-kernel --no-check
  bench $ex-16384-c2 $ex M=4096,N=16384 "{cluster=2}" 60 --runs 100 --no-check
done
bench rms-100000x32768 rmsnorm_bwd M=100000,N=32768 "" 170 --no-check --runs 30
bench ln-100000x32768 layernorm_bwd M=100000,N=32768 "" 170 --no-check --runs 30
tar czf $OUT/raw.tgz -C $OUT logs json
echo "elapsed $(( $(date +%s) - T0 )) s" >> $S
cat $S
