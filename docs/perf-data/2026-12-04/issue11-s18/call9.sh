# Issue 11, eighteenth session, call 9: LayerNorm bf16 576000 x 384 around the new cache entry
# (16 lanes a row, shared accumulators, two rows staged: 350 us; the target is 339), one knob
# at a time, alternating, unchecked; then morf-tune from the entry over those knobs (its
# pair step on the GPU for the first time), checked.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 200 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tpb() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label fuse-opts lower-opts
  local l=$1 fo=$2 lo=$3
  [ $(left) -lt 70 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 30 $B/morf-bench examples/layernorm_bwd.mlir --tuning-cache none --fused-pipeline "$(tpb "$fo" "$lo")" --sizes M=576000,N=384 \
    --warmup 10 --runs 100 --no-check --json $OUT/json/$l.json > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $4, $8}')" >> $S
}
W="threads-per-row=16 staged-rows=2 shared-accs=true"
for round in 1 2; do
  echo "== round $round" >> $S
  run r$round-base partials=resident "$W"
  for o in early-accumulates=true interleave-splits=true chunk-major=true batch-reductions=false threads=512 min-ctas=2 final=launch; do
    run r$round-${o//=/} partials=resident "$W $o"
  done
  run r$round-res2 "partials=resident*2" "$W"
  run r$round-tpr32 partials=resident "staged-rows=2 shared-accs=true"
  run r$round-ea-il partials=resident "$W early-accumulates=true interleave-splits=true"
done
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
if [ $(left) -gt 45 ]; then
  timeout $(( $(left) - 5 )) $B/morf-tune examples/layernorm_bwd.mlir --sizes M=576000,N=384 --cache $C --warm-start \
    --knobs early-accumulates,interleave-splits,chunk-major,batch-reductions --rounds 1 --max-trials 8 --runs 30 --final-runs 50 \
    --json $OUT/json/tune-ln.json > $OUT/logs/tune-ln.txt 2> $OUT/logs/tune-ln.log
  echo "tune-ln rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/tune-ln.txt | tail -1)" >> $S
  cp $C $OUT/h200.json
fi
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
