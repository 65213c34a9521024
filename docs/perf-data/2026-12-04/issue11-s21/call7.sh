# Issue 11, twenty-first session, call 7: the heuristic's new default for a CTA per row whose
# shared accumulators would leave no room for a ring (LayerNorm backward at N = 16384: 512
# threads, partials in registers within an eighth of the bound, three rows staged, row
# reductions batched when reloading from a ring) against the old default (the same binary
# with `shared-accs=true`: partials in 128 KiB of shared memory, row reloaded from L2, not
# batched), at three M; the new default with a ring of two and unbatched; and batching at
# N = 12288 and 10240 (reload from a ring, where `auto` now batches) against
# `batch-reductions=false`. Two rounds, alternating; fp64 check in the first.
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
P="partials=resident"
for r in 1 2; do
  echo "== round $r" >> $S
  K="--runs 100"; [ $r = 2 ] && K="--runs 100 --no-check"
  for m in 4096 2048 16384; do
    run r$r-ln16k-m$m-new $L M=$m,N=16384 "$P" "" $K
    run r$r-ln16k-m$m-old $L M=$m,N=16384 "$P" "shared-accs=true" $K
  done
  run r$r-ln16k-ring2 $L M=4096,N=16384 "$P" "staged-rows=2" $K
  run r$r-ln16k-nobatch $L M=4096,N=16384 "$P" "batch-reductions=false" $K
  run r$r-ln12k-new $L M=8192,N=12288 "$P" "" $K
  run r$r-ln12k-nobatch $L M=8192,N=12288 "$P" "batch-reductions=false" $K
  run r$r-ln10k-new $L M=8192,N=10240 "$P" "" $K
  run r$r-ln10k-nobatch $L M=8192,N=10240 "$P" "batch-reductions=false" $K
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
