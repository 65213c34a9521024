# Issue 11, fourteenth session, call 4: what the cluster exchange costs. The same kernels with
# every barrier.cluster.arrive relaxed (no release of the thread's earlier writes: racy, timed
# unchecked, only to price the release), loaded with morf-bench --ptx; two table rows with the
# committed cache as a regression check of this session's binary.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 420 - ($(date +%s) - T0) )); }
pipe() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu$1)"; }
mkdir -p $OUT/logs $OUT/json $OUT/ptx
S=$OUT/summary.txt
: > $S
one() { # label example sizes pipeline-options ptx-file|"" extra...
  l=$1; ex=$2; sz=$3; o=$4; px=$5; shift 5
  [ $(left) -lt 30 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  if [ -z "$o" ]; then p=gpu; else p="$(pipe "$o")"; fi
  if [ -n "$px" ]; then set -- "$@" --ptx $px; fi
  timeout 60 $B/morf-bench examples/$ex.mlir --tuning-cache none --fused-pipeline "$p" --sizes $sz \
    --runs 100 --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us\|check[^,]*' $OUT/logs/$l.txt | head -4 | tr '\n' ' ')" >> $S
}
for ex in rmsnorm_bwd layernorm_bwd; do
  for n in 16384 32768; do
    if [ $n = 16384 ]; then sz=M=4096,N=16384; o="{cluster=2}"
      $B/morf-opt examples/$ex.mlir --pass-pipeline="$(pipe "{size-hints=$sz cluster=2}")" --emit=ptx -o $OUT/ptx/$ex-$n.ptx 2>>$OUT/logs/opt.txt
    else sz=M=8192,N=32768; o=""
      $B/morf-opt examples/$ex.mlir --pipeline gpu --size-hints $sz --emit=ptx -o $OUT/ptx/$ex-$n.ptx 2>>$OUT/logs/opt.txt
    fi
    sed 's/barrier\.cluster\.arrive\.aligned/barrier.cluster.arrive.relaxed.aligned/' $OUT/ptx/$ex-$n.ptx > $OUT/ptx/$ex-$n-relaxed.ptx
    echo "$ex $n: $(grep -c 'barrier.cluster.arrive.aligned' $OUT/ptx/$ex-$n.ptx) release arrives" >> $S
    one $ex-$n-base $ex $sz "$o" $OUT/ptx/$ex-$n.ptx --no-check
    one $ex-$n-relaxed $ex $sz "$o" $OUT/ptx/$ex-$n-relaxed.ptx --no-check
  done
done
# Regression check: two rows of the table with the committed cache (session 11: 335.2, 227.6 us).
timeout 60 $B/morf-bench examples/rmsnorm_bwd.mlir --sizes M=576000,N=384 --runs 100 > $OUT/logs/rms-576000.txt 2>&1
echo "rms 576000x384 cached rc=$?: $(grep -o 'median [0-9.]* us\|check[^,]*' $OUT/logs/rms-576000.txt | head -3 | tr '\n' ' ')" >> $S
timeout 60 $B/morf-bench examples/layernorm_bwd.mlir --sizes M=32768,N=4096 --runs 100 > $OUT/logs/ln-32768.txt 2>&1
echo "ln 32768x4096 cached rc=$?: $(grep -o 'median [0-9.]* us\|check[^,]*' $OUT/logs/ln-32768.txt | head -4 | tr '\n' ' ')" >> $S
tar czf $OUT/raw.tgz -C $OUT logs json ptx
echo "elapsed $(( $(date +%s) - T0 )) s" >> $S
cat $S
