# Issue 11, sixteenth session, call 6: compute-sanitizer memcheck and racecheck on this
# session's kernels (GPU-level IR from morf-opt, run by morf-run): batched row reductions with
# a warp per row, a CTA per row (one barrier per reduction, alternating slot halves) and a
# cluster per row; a warp per row's shared accumulators; then dw/db over fresh processes.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 545 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs
S=$OUT/summary.txt
: > $S
san() { # label example sizes pipeline
  local l=$1 ex=$2 sz=$3 p=$4 tool
  $B/morf-opt examples/$ex.mlir --pass-pipeline="$p" -o $OUT/logs/$l.mlir 2>> $OUT/logs/opt.txt || { echo "$l: morf-opt failed" >> $S; return; }
  for tool in memcheck racecheck; do
    [ $(left) -lt 70 ] && { echo "$l $tool: skipped (deadline)" >> $S; continue; }
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/morf-run $OUT/logs/$l.mlir --device gpu --random $sz --output-dir /tmp/o-$l \
      > $OUT/logs/san-$l-$tool.txt 2>&1
    echo "$l $tool rc=$?: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/logs/san-$l-$tool.txt | head -1)" >> $S
  done
}
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=$1 $2})"; }
san ln-warp layernorm_bwd M=4099,N=1024 "$(tp M=4099,N=1024 "")"
san ln-cta layernorm_bwd M=1030,N=8192 "$(tp M=1030,N=8192 "")"
san rms-cta rmsnorm_bwd M=1030,N=8192 "$(tp M=1030,N=8192 "")"
san ln-cluster layernorm_bwd M=64,N=32768 "$(tp M=64,N=32768 "")"
san rms-warp-sh rmsnorm_bwd M=4099,N=768 "$(tp M=4099,N=768 "rows-in-flight=1 shared-accs=true")"
san ln-warp-sh layernorm_bwd M=4099,N=384 "$(tp M=4099,N=384 "threads-per-row=16 shared-accs=true")"
# dw and db over fresh processes on the same inputs (batched reductions, a CTA per row).
$B/morf-opt examples/layernorm_bwd.mlir --pass-pipeline="$(tp M=2048,N=8192 "")" -o $OUT/logs/det.mlir 2>> $OUT/logs/opt.txt
for i in $(seq 1 25); do
  [ $(left) -lt 20 ] && break
  timeout 20 $B/morf-run $OUT/logs/det.mlir --device gpu --random M=2048,N=8192 --seed 5 --output-dir /tmp/det-$i > /dev/null 2>&1
done
for r in result1 result2; do
  echo "determinism layernorm_bwd 2048x8192 $r: $(ls /tmp/det-*/$r.npy 2>/dev/null | wc -l) runs, $(md5sum /tmp/det-*/$r.npy 2>/dev/null | awk '{print $1}' | sort -u | wc -l) distinct" >> $S
done
cd $OUT && tar czf raw.tgz logs && rm -rf logs; cd - > /dev/null
cat $S
