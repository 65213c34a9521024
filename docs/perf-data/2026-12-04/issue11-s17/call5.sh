# Issue 11, seventeenth session, call 5: compute-sanitizer memcheck and racecheck on the final
# reduction's vector form (GPU-level IR from morf-opt, run by morf-run): in the row kernel's
# grid and in its own launch, narrow and wide segments, a tile wider than the CTA, the
# split-K final of the unfused pipeline, and the scalar form (odd N); then dw/db over fresh
# processes (determinism).
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
san ln-grid layernorm_bwd M=4099,N=1000 "$(tp M=4099,N=1000 "")"
san rms-grid-8k rmsnorm_bwd M=1030,N=8192 "$(tp M=1030,N=8192 "")"
san ln-launch layernorm_bwd M=4099,N=1024 "$(tp M=4099,N=1024 "final=launch")"
san ln-lanes2 layernorm_bwd M=4099,N=384 "$(tp M=4099,N=384 "final-lanes=2")"
san rms-wide rmsnorm_bwd M=2000,N=1024 "$(tp M=2000,N=1024 "final=launch final-lanes=32 threads=64")"
san rms-scalar rmsnorm_bwd M=3000,N=1001 "$(tp M=3000,N=1001 "")"
san colsum-splitk layernorm_bwd M=5000,N=1000 "builtin.module(lower-tensor-to-loop,canonicalize,cse,lower-loop-to-gpu)"
tp2="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"
$B/morf-opt examples/layernorm_bwd.mlir --pass-pipeline="$tp2" -o $OUT/logs/det.mlir 2>> $OUT/logs/opt.txt
for i in $(seq 1 25); do
  [ $(left) -lt 20 ] && break
  timeout 20 $B/morf-run $OUT/logs/det.mlir --device gpu --random M=65536,N=1024 --seed 5 --output-dir /tmp/det-$i > /dev/null 2>&1
done
for r in result1 result2; do
  echo "determinism layernorm_bwd 65536x1024 (no hints) $r: $(ls /tmp/det-*/$r.npy 2>/dev/null | wc -l) runs, $(md5sum /tmp/det-*/$r.npy 2>/dev/null | awk '{print $1}' | sort -u | wc -l) distinct" >> $S
done
cd $OUT && tar czf raw.tgz logs && rm -rf logs; cd - > /dev/null
cat $S
