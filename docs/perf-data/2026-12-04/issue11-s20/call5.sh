# Issue 11, twentieth session, call 5: (A) the binary whose fresh workspace stores take the
# constant row stride n (no stride parameter held across the row loop: row_col_stats at
# N = 8192 no longer spills) on the cached CTA-per-row rows; (B) shapes outside the table,
# untuned default against the CTA-per-row recipe at the most CTAs a SM that ptxas fits without
# a spill (checked offline), to see whether the recipe should be the heuristic's default.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 570 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=$B/h200.json
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes fuse-opts lower-opts extra...
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 20 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 120 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [$lo $*]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
cache() { # label cache file sizes
  local l=$1 c=$2 f=$3 sz=$4; shift 4
  [ $(left) -lt 20 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 60 $B/morf-bench $f --tuning-cache $c --sizes $sz --warmup 10 --runs 100 --no-check --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [cache $c]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
F="partials=resident splits=32"
X="staged-rows=1 remat-converts=true interleave-splits=true rows-in-flight=1"
echo "== A: cache" >> $S
for sh in rms:32768x4096 ln:32768x4096 rms:16384x8192 ln:16384x8192 rms:4096x16384 ln:4096x16384 rcs:16384x8192; do
  p=${sh%%:*}; m=${sh#*:}; f=$R; [ $p = ln ] && f=$L; [ $p = rcs ] && f=examples/row_col_stats.mlir
  cache A-$p-$m $C $f "M=${m%x*},N=${m#*x}"
done
declare -A SEEN
for r in 1 2; do
  echo "== B round $r" >> $S
  K=""; [ $r = 2 ] && K="--no-check"
  for sh in rms:65536x2048:4 rms:65536x2048:5 rms:8192x8192:2 rms:32768x768:2 rms:32768x3072:4 rms:8192x5120:2 ln:65536x2048:3 ln:65536x2048:5 ln:32768x768:2 ln:32768x3072:3; do
    IFS=: read p m mc <<< "$sh"; f=$R; [ $p = ln ] && f=$L; sz="M=${m%x*},N=${m#*x}"
    [ -z "${SEEN[$r-$p-$m]:-}" ] && { SEEN[$r-$p-$m]=1; cache r$r-$p-$m-default none $f $sz; }
    run r$r-$p-$m-recipe-mc$mc $f $sz "$F" "$X min-ctas=$mc" $K
  done
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
