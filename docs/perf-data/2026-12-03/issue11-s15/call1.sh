# Issue 11, fifteenth session, call 1: where the time of the N = 1024..8192 rows goes, with the
# committed cache: morf-bench per kernel, and ncu of the main kernel (warp states, memory);
# RMSNorm at 100000 x 32768.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 540 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json $OUT/ncu
S=$OUT/summary.txt
: > $S
bench() { # label example sizes timeout extra...
  l=$1; ex=$2; sz=$3; to=$4; shift 4
  [ $(left) -lt $(( to / 2 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout $to $B/morf-bench examples/$ex.mlir --sizes $sz --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us\|[0-9.]*% ' $OUT/logs/$l.txt | head -8 | tr '\n' ' ')" >> $S
}
for ex in rmsnorm_bwd layernorm_bwd; do
  for sz in M=65536,N=1024 M=32768,N=4096 M=16384,N=8192; do
    bench $ex-$sz-pk $ex $sz 60 --runs 100 --per-kernel --no-check
  done
done
for ex in rmsnorm_bwd layernorm_bwd; do
  for sz in M=32768,N=4096 M=16384,N=8192; do
    [ $(left) -lt 60 ] && break
    timeout 60 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
      --section LaunchStats --section Occupancy --section SchedulerStats --section SourceCounters \
      $B/morf-run examples/$ex.mlir --device gpu --random $sz > $OUT/ncu/$ex-${sz/,/_}.txt 2>&1
    echo "ncu $ex $sz rc=$?" >> $S
  done
done
# 100000 x 32768 (unchecked: past the interpreter), now that morf-bench uploads once.
bench rms-100000x32768 rmsnorm_bwd M=100000,N=32768 170 --no-check --runs 30
cd $OUT && tar czf raw.tgz logs json ncu; cd - >/dev/null
echo "elapsed $(( $(date +%s) - T0 )) s" >> $S
cat $S
for f in $OUT/logs/*-pk.txt; do echo "== $f"; tail -25 $f; done
