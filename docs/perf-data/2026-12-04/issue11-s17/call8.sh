# Issue 11, seventeenth session, call 8: the 65536 x 1024 rows with the split sized at run time
# (partials=resident: one split per resident CTA, 132 at one CTA a SM) instead of the cache's
# fixed 512-row splits (128 splits: 4 of 132 SMs idle), with the cache's launch shape; then
# fp64 checks of any winner's schedule.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 300 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label example sizes fuse-opts lower-opts extra...
  local l=$1 e=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 40 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 40 $B/morf-bench examples/$e.mlir --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us\|check result[0-9]*: rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ') $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
S1=M=65536,N=1024
for r in 1 2; do
  run rms-cached-$r rmsnorm_bwd $S1 "partials=0 splits=512" "rows-in-flight=2" --runs 100 --no-check
  run rms-resident-$r rmsnorm_bwd $S1 "partials=resident" "rows-in-flight=2" --runs 100 --no-check
  run rms-resident-il-$r rmsnorm_bwd $S1 "partials=resident" "rows-in-flight=2 interleave-splits=true" --runs 100 --no-check
  run rms-132-$r rmsnorm_bwd $S1 "partials=132" "rows-in-flight=2" --runs 100 --no-check
  run ln-cached-$r layernorm_bwd $S1 "partials=0 splits=512" "rows-in-flight=2 staged-rows=4" --runs 100 --no-check
  run ln-resident-$r layernorm_bwd $S1 "partials=resident" "rows-in-flight=2 staged-rows=4" --runs 100 --no-check
  run ln-resident-il-$r layernorm_bwd $S1 "partials=resident" "rows-in-flight=2 staged-rows=4 interleave-splits=true" --runs 100 --no-check
  run ln-132-$r layernorm_bwd $S1 "partials=132" "rows-in-flight=2 staged-rows=4" --runs 100 --no-check
done
run chk-rms-resident rmsnorm_bwd $S1 "partials=resident" "rows-in-flight=2" --runs 20
run chk-ln-resident layernorm_bwd $S1 "partials=resident" "rows-in-flight=2 staged-rows=4" --runs 20
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
