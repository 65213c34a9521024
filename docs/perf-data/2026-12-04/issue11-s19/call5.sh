# Issue 11, nineteenth session, call 5: `remat-converts=true` (this session's binary): the
# widenings redone after the row reduction's barrier, with call 4's launch (no staging, one
# row in flight, several CTAs a SM, splits=32); fp64 checks first, then two alternating rounds.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 540 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes fuse-opts lower-opts extra...
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 20 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 120 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [$fo; $lo $*]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
cache() { # label file sizes
  timeout 60 $B/morf-bench $2 --tuning-cache $B/h200.json --sizes $3 --warmup 10 --runs 100 --no-check --json $OUT/json/$1.json > $OUT/logs/$1.txt 2>&1
  echo "$1 rc=$? [cache]: $(grep -o 'median [0-9.]* us' $OUT/logs/$1.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$1.txt | awk -F'|' '{print $8}')" >> $S
}
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
X="threads=256 staged-rows=1 rows-in-flight=1 remat-converts=true"; F="partials=resident splits=32"
run chk-rms4k $R M=32768,N=4096 "$F" "$X min-ctas=3 interleave-splits=true"
run chk-rms8k $R M=16384,N=8192 "$F" "$X min-ctas=2 interleave-splits=true"
run chk-ln4k $L M=32768,N=4096 "$F" "$X min-ctas=3 interleave-splits=true"
run chk-rms-odd $R M=4099,N=4096 "$F" "$X min-ctas=3 interleave-splits=true"
run chk-ln-odd $L M=2053,N=8192 "$F" "$X min-ctas=2 interleave-splits=true"
for r in 1 2; do
  echo "== round $r" >> $S
  cache r$r-rms4k-cache $R M=32768,N=4096
  for o in "min-ctas=3" "min-ctas=3 interleave-splits=true" "min-ctas=4 interleave-splits=true" "min-ctas=3 interleave-splits=true chunk-major=true"; do
    run r$r-rms4k-${o// /_} $R M=32768,N=4096 "$F" "$X $o" --no-check; done
  cache r$r-rms8k-cache $R M=16384,N=8192
  for o in "min-ctas=2" "min-ctas=2 interleave-splits=true" "min-ctas=2 interleave-splits=true chunk-major=true"; do
    run r$r-rms8k-${o// /_} $R M=16384,N=8192 "$F" "$X $o" --no-check; done
  cache r$r-ln4k-cache $L M=32768,N=4096
  for o in "min-ctas=3" "min-ctas=3 interleave-splits=true" "min-ctas=2 interleave-splits=true"; do
    run r$r-ln4k-${o// /_} $L M=32768,N=4096 "$F" "$X $o" --no-check; done
  cache r$r-ln8k-cache $L M=16384,N=8192
  for o in "min-ctas=2 interleave-splits=true"; do
    run r$r-ln8k-${o// /_} $L M=16384,N=8192 "$F" "$X $o" --no-check; done
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
