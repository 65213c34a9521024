# Issue 11, seventeenth session, call 3: the launch shape of the 65536 x 1024 and
# 16384 x 8192 rows swept around the cached schedules (CTA size, rows in flight, the reload
# form, CTAs per SM), this session's binary, unchecked (the checks follow for any winner).
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 545 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes fuse-opts lower-opts extra...
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 40 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 40 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 --no-check \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
R=examples/rmsnorm_bwd.mlir
L=examples/layernorm_bwd.mlir
S1=M=65536,N=1024
for t in 128 256 512; do
  for rif in 1 2; do
    for rl in false true; do
      run rms1k-t$t-rif$rif-reload$rl $R $S1 "partials=0 splits=512" "threads=$t rows-in-flight=$rif reload=$rl"
      run ln1k-t$t-rif$rif-reload$rl $L $S1 "partials=0 splits=512" "threads=$t rows-in-flight=$rif reload=$rl staged-rows=4"
    done
  done
done
for mc in none 1 2 3; do
  run rms1k-t128-rif1-reload-mc$mc $R $S1 "partials=0 splits=512" "threads=128 rows-in-flight=1 reload=true min-ctas=$mc"
  run ln1k-t128-rif1-reload-mc$mc $L $S1 "partials=0 splits=512" "threads=128 rows-in-flight=1 reload=true staged-rows=4 min-ctas=$mc"
done
S8=M=16384,N=8192
for t in 256 512 1024; do
  for st in 1 2 4; do
    run rms8k-t$t-st$st $R $S8 "partials=0" "threads=$t staged-rows=$st"
    run ln8k-t$t-st$st $L $S8 "partials=0" "threads=$t staged-rows=$st"
  done
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
