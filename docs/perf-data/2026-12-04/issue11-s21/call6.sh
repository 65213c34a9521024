# Issue 11, twenty-first session, call 6: the schedule that took LayerNorm 4096 x 16384 from
# 165.7 to 131.2 us (call 5: a CTA per row reloading its row from three staged rows, partials
# in registers, reductions batched, chunk-major, contract-fma) at the two LayerNorm rows short
# of 205 us: 16384 x 8192 (256 threads of 32 columns, two CTAs a SM with three rows staged)
# and 32768 x 4096 (128 threads), rings of two and three, and CTAs of 16 columns a thread;
# each against the committed cache's schedule, twice, alternating.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 300 - ($(date +%s) - T0) )); }
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
C=$B/h200.json
cache() { # label file sizes extra...
  local l=$1 f=$2 sz=$3; shift 3
  [ $(left) -lt 40 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 60 $B/morf-bench $f --tuning-cache $C --sizes $sz --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [cache]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
X="reload=true shared-accs=false batch-reductions=true chunk-major=true contract-fma=true"
for r in 1 2; do
  echo "== round $r" >> $S
  K="--runs 100"; [ $r = 2 ] && K="--runs 100 --no-check"
  cache r$r-ln8k-cache $L M=16384,N=8192 $K
  run r$r-ln8k-ring3 $L M=16384,N=8192 "partials=resident" "$X staged-rows=3" $K
  run r$r-ln8k-ring2 $L M=16384,N=8192 "partials=resident" "$X staged-rows=2" $K
  run r$r-ln8k-t512-ring3 $L M=16384,N=8192 "partials=resident" "$X staged-rows=3 threads=512" $K
  cache r$r-ln4k-cache $L M=32768,N=4096 $K
  run r$r-ln4k-ring3 $L M=32768,N=4096 "partials=resident" "$X staged-rows=3" $K
  run r$r-ln4k-ring2 $L M=32768,N=4096 "partials=resident" "$X staged-rows=2" $K
  run r$r-ln4k-t256-ring3 $L M=32768,N=4096 "partials=resident" "$X staged-rows=3 threads=256" $K
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
