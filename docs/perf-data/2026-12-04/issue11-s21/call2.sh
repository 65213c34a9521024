# Issue 11, twenty-first session, call 2: long rows, a CTA of 1024 threads per row (32 warps
# a SM instead of 16). The defaults at 4096 x 16384 take 512 threads a row: RMSNorm reloads
# its row from a two-row shared ring, LayerNorm reloads it from L2 with its partials in
# 128 KiB of shared memory (57% of the floor). Here: 1024 threads with the partials in
# registers (LayerNorm: 16 columns x 2 partials; ptxas spills 80-176 bytes of stack) and the
# row reloaded from a two-row ring or from L2 (then two CTAs a SM), or with the partials in
# shared memory; and the same at 100000 x 32768 in clusters of two (unchecked: the host
# reference of 3.3 G elements is too slow). Each against its default, twice, alternating.
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
for r in 1 2; do
  echo "== round $r" >> $S
  K="--runs 100"; [ $r = 2 ] && K="--runs 100 --no-check"
  run r$r-ln16k-default $L M=4096,N=16384 "partials=resident" "" $K
  run r$r-ln16k-t1024-ring2 $L M=4096,N=16384 "$F" "threads=1024 reload=true shared-accs=false staged-rows=2" $K
  run r$r-ln16k-t1024-ring2-fma $L M=4096,N=16384 "$F" "threads=1024 reload=true shared-accs=false staged-rows=2 contract-fma=true" $K
  run r$r-ln16k-t1024-l2 $L M=4096,N=16384 "$F" "threads=1024 reload=true shared-accs=false staged-rows=1" $K
  run r$r-ln16k-t1024-saccs $L M=4096,N=16384 "$F" "threads=1024 reload=true shared-accs=true staged-rows=1" $K
  run r$r-rms16k-default $R M=4096,N=16384 "partials=resident" "" $K
  run r$r-rms16k-t1024-ring2 $R M=4096,N=16384 "$F" "threads=1024 reload=true staged-rows=2" $K
  run r$r-rms16k-t1024-l2 $R M=4096,N=16384 "$F" "threads=1024 reload=true staged-rows=1" $K
done
echo "== 100000 x 32768 (unchecked)" >> $S
K="--runs 30 --no-check"
run rms32k-default $R M=100000,N=32768 "partials=resident" "" $K
run rms32k-t1024-c2-ring2 $R M=100000,N=32768 "$F" "threads=1024 cluster=2 reload=true staged-rows=2" $K
run ln32k-default $L M=100000,N=32768 "partials=resident" "" $K
run ln32k-t1024-c2-ring2 $L M=100000,N=32768 "$F" "threads=1024 cluster=2 reload=true shared-accs=false staged-rows=2" $K
run ln32k-t1024-c2-saccs $L M=100000,N=32768 "$F" "threads=1024 cluster=2 reload=true shared-accs=true staged-rows=1" $K
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
