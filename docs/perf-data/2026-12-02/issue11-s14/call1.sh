# Issue 11, fourteenth session, call 1: a thread-block cluster per row (lower-loop-to-gpu{cluster=C})
# against the default at long rows; fp64 checks; compute-sanitizer on a cluster kernel; Inductor.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 540 - ($(date +%s) - T0) )); }
pipe() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu$1)"; }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
bench() { # label example sizes pipeline-options extra...
  l=$1; ex=$2; sz=$3; o=$4; shift 4
  [ $(left) -lt 40 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  if [ -z "$o" ]; then p=gpu; else p="$(pipe "$o")"; fi
  timeout 90 $B/morf-bench examples/$ex.mlir --tuning-cache none --fused-pipeline "$p" --sizes $sz \
    --runs 100 --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  rc=$?
  echo "$l rc=$rc: $(grep -o 'median [0-9.]* us\|[0-9.]*% of floor\|check[^,]*' $OUT/logs/$l.txt | head -4 | tr '\n' ' ')" >> $S
}
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader >> $S
for ex in rmsnorm_bwd layernorm_bwd; do
  bench $ex-16384-def $ex M=4096,N=16384 ""
  bench $ex-16384-c2 $ex M=4096,N=16384 "{cluster=2}"
  bench $ex-16384-c4 $ex M=4096,N=16384 "{cluster=4}"
  bench $ex-16384-c2-pk $ex M=4096,N=16384 "{cluster=2}" --per-kernel --no-check
done
for ex in rmsnorm_bwd layernorm_bwd; do
  bench $ex-32768-c2 $ex M=8192,N=32768 "{cluster=2}" --no-check
  bench $ex-32768-c4 $ex M=8192,N=32768 "{cluster=4}"
  bench $ex-32768-c8 $ex M=8192,N=32768 "{cluster=8}" --no-check
done
# Odd shapes, checked against fp64 on the GPU.
bench rms-odd-4099x16384-c2 rmsnorm_bwd M=4099,N=16384 "{cluster=2}"
bench ln-odd-7x16384-c4 layernorm_bwd M=7,N=16384 "{cluster=4}"
bench ln-odd-1000x16000-c2 layernorm_bwd M=1000,N=16000 "{cluster=2}"
# The table's long rows with clusters (is a cluster a gain at N = 8192 and 4096 too?).
for ex in rmsnorm_bwd layernorm_bwd; do
  bench $ex-8192-c2 $ex M=16384,N=8192 "{cluster=2}"
  bench $ex-4096-c2 $ex M=32768,N=4096 "{cluster=2}" --no-check
done
# compute-sanitizer on a cluster kernel (GPU-level IR from morf-opt).
if [ $(left) -gt 90 ]; then
  for ex in rmsnorm_bwd layernorm_bwd; do
    $B/morf-opt examples/$ex.mlir --pass-pipeline="$(pipe "{size-hints=M=64,N=16384 cluster=2}")" -o $OUT/logs/$ex-c2.mlir 2>> $OUT/logs/opt.txt
    for tool in memcheck racecheck; do
      timeout 60 compute-sanitizer --tool $tool $B/morf-run $OUT/logs/$ex-c2.mlir --device gpu --random M=64,N=16384 --output-dir /tmp/o > $OUT/logs/san-$ex-$tool.txt 2>&1
      echo "sanitizer $ex $tool rc=$?: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY\|hazard' $OUT/logs/san-$ex-$tool.txt | head -2 | tr '\n' ' ')" >> $S
    done
  done
fi
# Inductor at 4096x16384 (default), same call.
if [ $(left) -gt 60 ]; then
  (cd $B/peers && for op in rms ln; do ONLY_INDUCTOR=1 SHAPES=4096x16384:bf16 timeout 100 python3 anchors.py $op; done) > $OUT/logs/inductor.txt 2>&1
  tail -8 $OUT/logs/inductor.txt >> $S
fi
tar czf $OUT/raw.tgz -C $OUT logs json
echo "elapsed $(( $(date +%s) - T0 )) s" >> $S
cat $S
