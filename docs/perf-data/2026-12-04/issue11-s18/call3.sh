# Issue 11, eighteenth session, call 3: the 576000 x 384 rows not met (RMSNorm f32, LayerNorm
# bf16) with the knobs that won RMSNorm bf16 (interleave-splits, threads-per-row=16, the
# run-time split), which their cache entries predate; alternating, two timings, unchecked.
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
  [ $(left) -lt 30 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 30 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 --no-check \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
R=examples/rmsnorm_bwd_f32.mlir
L=examples/layernorm_bwd.mlir
Z=M=576000,N=384
for round in 1 2; do
  echo "== round $round" >> $S
  run r$round-rmsf-cache $R $Z "partials=0" ""
  run r$round-rmsf-bfwin $R $Z "partials=528 splits=256" "interleave-splits=true rows-in-flight=1 threads-per-row=16"
  run r$round-rmsf-res-i $R $Z "partials=resident" "interleave-splits=true"
  run r$round-rmsf-res-i16 $R $Z "partials=resident" "interleave-splits=true threads-per-row=16"
  run r$round-rmsf-528-i $R $Z "partials=528 splits=256" "interleave-splits=true"
  run r$round-rmsf-1056-i $R $Z "partials=1056 splits=128" "interleave-splits=true"
  run r$round-ln-cache $L $Z "partials=264 splits=256" "staged-rows=4"
  run r$round-ln-bfwin $L $Z "partials=528 splits=256" "interleave-splits=true rows-in-flight=1 threads-per-row=16"
  run r$round-ln-res-i16 $L $Z "partials=resident" "interleave-splits=true threads-per-row=16"
  run r$round-ln-528-16 $L $Z "partials=528 splits=256" "threads-per-row=16 rows-in-flight=1"
  run r$round-ln-res-i $L $Z "partials=resident" "interleave-splits=true"
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
