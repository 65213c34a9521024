# Issue 11, eighteenth session, call 4: around call 3's RMSNorm f32 winner (partials=resident with
# interleave-splits, 643.3 us against the cache's 660.9) and LayerNorm bf16 576000 x 384
# around its cached schedule (staged rows with other splits); alternating, unchecked.
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
R=examples/rmsnorm_bwd_f32.mlir
L=examples/layernorm_bwd.mlir
Z=M=576000,N=384
for round in 1 2; do
  echo "== round $round" >> $S
  run r$round-rmsf-res-i $R $Z "partials=resident" "interleave-splits=true"
  for o in rows-in-flight=2 staged-rows=2 staged-rows=4 threads=512 threads=128 min-ctas=none min-ctas=2 early-accumulates=true shared-accs=true threads-per-row=8; do
    run r$round-rmsf-res-i-${o//=/} $R $Z "partials=resident" "interleave-splits=true $o"
  done
  run r$round-rmsf-res2-i $R $Z "partials=resident*2" "interleave-splits=true"
  run r$round-ln-cache $L $Z "partials=264 splits=256" "staged-rows=4"
  run r$round-ln-res-st4 $L $Z "partials=resident" "staged-rows=4"
  run r$round-ln-528-st4 $L $Z "partials=528 splits=256" "staged-rows=4"
  for o in staged-rows=8 "staged-rows=4 early-accumulates=true" "staged-rows=4 threads=512" "staged-rows=4 rows-in-flight=2"; do
    t=${o// /-}; run r$round-ln-${t//=/} $L $Z "partials=264 splits=256" "$o"
  done
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
