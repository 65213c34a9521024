# Issue 11, nineteenth session, call 3: RMSNorm / LayerNorm backward with call 2's rownorm
# winner (no staging, one row in flight, several CTAs a SM: .minnctapersm bounds the
# registers) at N = 8192 and 4096, with morf's PTX and with the same PTX after
# sink_converts.py (bf16 -> f32 conversions redone after the row reduction), alternating.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 540 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes lower-opts extra...
  local l=$1 f=$2 sz=$3 lo=$4; shift 4
  [ $(left) -lt 20 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 120 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp partials=resident "$lo")" --sizes $sz --warmup 10 --runs 100 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [$lo $*]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
cache() { # label file sizes
  timeout 60 $B/morf-bench $2 --tuning-cache $B/h200.json --sizes $3 --warmup 10 --runs 100 --no-check --json $OUT/json/$1.json > $OUT/logs/$1.txt 2>&1
  echo "$1 rc=$? [cache]: $(grep -o 'median [0-9.]* us' $OUT/logs/$1.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$1.txt | awk -F'|' '{print $8}')" >> $S
}
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
X="threads=256 staged-rows=1 rows-in-flight=1"
# fp64 checks of the rewritten PTX first
run chk-rms4k-mc3-sunk $R M=32768,N=4096 "$X min-ctas=3" --ptx $B/ptx/rms4k-mc3-sunk.ptx
run chk-rms8k-mc2-sunk $R M=16384,N=8192 "$X min-ctas=2" --ptx $B/ptx/rms8k-mc2-sunk.ptx
for r in 1 2; do
  echo "== round $r" >> $S
  cache r$r-rms8k-cache $R M=16384,N=8192
  for v in rms8k-mc2 rms8k-mc2-il; do o="$X min-ctas=2"; [ $v = rms8k-mc2-il ] && o="$o interleave-splits=true"
    run r$r-$v $R M=16384,N=8192 "$o" --no-check
    run r$r-$v-sunk $R M=16384,N=8192 "$o" --no-check --ptx $B/ptx/$v-sunk.ptx
  done
  cache r$r-rms4k-cache $R M=32768,N=4096
  for v in rms4k-mc3 rms4k-mc3-il; do o="$X min-ctas=3"; [ $v = rms4k-mc3-il ] && o="$o interleave-splits=true"
    run r$r-$v $R M=32768,N=4096 "$o" --no-check
    run r$r-$v-sunk $R M=32768,N=4096 "$o" --no-check --ptx $B/ptx/$v-sunk.ptx
  done
  run r$r-rms4k-mc2 $R M=32768,N=4096 "$X min-ctas=2" --no-check
  cache r$r-ln4k-cache $L M=32768,N=4096
  run r$r-ln4k-mc2 $L M=32768,N=4096 "$X min-ctas=2" --no-check
  run r$r-ln4k-mc3 $L M=32768,N=4096 "$X min-ctas=3" --no-check
  run r$r-ln4k-mc2-il $L M=32768,N=4096 "$X min-ctas=2 interleave-splits=true" --no-check
  cache r$r-ln8k-cache $L M=16384,N=8192
  run r$r-ln8k-mc2 $L M=16384,N=8192 "$X min-ctas=2" --no-check
  run r$r-ln8k-mc2-sunk $L M=16384,N=8192 "$X min-ctas=2" --no-check --ptx $B/ptx/ln8k-mc2-sunk.ptx
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
