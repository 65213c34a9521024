# Issue 11, twenty-first session, call 3: long rows again. Call 2's CTAs of 1024 lost (the
# LayerNorm partials spill there). Here a CTA of 512 a row with LayerNorm's partials in
# registers (32 columns x 2 partials; 128 registers, no spill with a ring of three rows) and
# the row reloaded from a shared ring of two or three rows (192 KiB), instead of the default's
# L2 reload with the partials in 128 KiB of shared memory; RMSNorm with a ring of three. Then
# 100000 x 32768 in clusters of two with the same (unchecked). Each against its default.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 560 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes fuse-opts lower-opts extra...
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 40 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 90 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [$lo $*]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
F="partials=resident splits=32"
X="threads=512 reload=true shared-accs=false"
for r in 1 2; do
  echo "== round $r" >> $S
  K="--runs 100"; [ $r = 2 ] && K="--runs 100 --no-check"
  run r$r-ln16k-default $L M=4096,N=16384 "partials=resident" "" $K
  run r$r-ln16k-ring2 $L M=4096,N=16384 "$F" "$X staged-rows=2" $K
  run r$r-ln16k-ring3 $L M=4096,N=16384 "$F" "$X staged-rows=3" $K
  run r$r-ln16k-ring3-fma $L M=4096,N=16384 "$F" "$X staged-rows=3 contract-fma=true" $K
  run r$r-ln16k-ring3-cm $L M=4096,N=16384 "$F" "$X staged-rows=3 chunk-major=true remat-converts=true" $K
  run r$r-rms16k-default $R M=4096,N=16384 "partials=resident" "" $K
  run r$r-rms16k-ring3 $R M=4096,N=16384 "$F" "threads=512 reload=true staged-rows=3" $K
done
echo "== 100000 x 32768 (unchecked)" >> $S
K="--runs 30 --no-check"
run ln32k-default $L M=100000,N=32768 "partials=resident" "" $K
run ln32k-c2-ring3 $L M=100000,N=32768 "$F" "$X cluster=2 staged-rows=3" $K
run ln32k-c2-ring2 $L M=100000,N=32768 "$F" "$X cluster=2 staged-rows=2" $K
run rms32k-default $R M=100000,N=32768 "partials=resident" "" $K
run rms32k-c2-ring3 $R M=100000,N=32768 "$F" "threads=512 cluster=2 reload=true staged-rows=3" $K
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
