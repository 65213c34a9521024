# Issue 11, seventeenth session, call 7: early accumulates (now `early-accumulates=true`)
# with the CTA shapes their registers allow at 65536 x 1024 (159 registers with one row in
# flight: three CTAs of 128 a SM), and with the cached schedules of the long rows; unchecked
# unless said.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 400 - ($(date +%s) - T0) )); }
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
run rms-cached rmsnorm_bwd $S1 "partials=0 splits=512" "rows-in-flight=2" --runs 100 --no-check
run ln-cached layernorm_bwd $S1 "partials=0 splits=512" "rows-in-flight=2 staged-rows=4" --runs 100 --no-check
for e in rmsnorm_bwd layernorm_bwd; do
  for t in 64 128; do
    for rif in 1 2; do
      run $e-t$t-rif$rif-early $e $S1 "partials=resident" "threads=$t rows-in-flight=$rif early-accumulates=true" --runs 100 --no-check
    done
    run $e-t$t-rif1-early-sh $e $S1 "partials=resident" "threads=$t rows-in-flight=1 early-accumulates=true shared-accs=true" --runs 100 --no-check
  done
  run $e-t256-rif1-early $e $S1 "partials=resident" "rows-in-flight=1 early-accumulates=true" --runs 100 --no-check
done
run rms-cached-early rmsnorm_bwd $S1 "partials=0 splits=512" "rows-in-flight=2 early-accumulates=true" --runs 100 --no-check
run ln-cached-early layernorm_bwd $S1 "partials=0 splits=512" "rows-in-flight=2 staged-rows=4 early-accumulates=true" --runs 100 --no-check
run rms-cached-2 rmsnorm_bwd $S1 "partials=0 splits=512" "rows-in-flight=2" --runs 100 --no-check
run ln-cached-2 layernorm_bwd $S1 "partials=0 splits=512" "rows-in-flight=2 staged-rows=4" --runs 100 --no-check
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
