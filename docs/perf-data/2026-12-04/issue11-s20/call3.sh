# Issue 11, twentieth session, call 3: a CTA per row that holds its row in registers while its
# column partials accumulate in shared memory (new: `reload=false shared-accs=true`), so that
# more CTAs fit an SM (ptxas, offline: no spills in any variant below). Against the cache
# (binary with the 16-byte workspace stores restored) and the register-partials recipe at four
# CTAs a SM. Also row_col_stats 16384 x 8192 untuned, HEAD's scalar stores (A) against vectors
# (8-byte spill outside the row loop with vectors). Round 1 checks against fp64.
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
cache() { # label binary file sizes extra
  local l=$1 bin=$2 f=$3 sz=$4; shift 4
  [ $(left) -lt 20 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 60 $bin $f --tuning-cache $C --sizes $sz --warmup 10 --runs 100 --no-check --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [cache]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
F="partials=resident splits=32"
X="staged-rows=1 remat-converts=true interleave-splits=true rows-in-flight=1"
H="$X reload=false shared-accs=true"
for r in 1 2; do
  echo "== round $r" >> $S
  K=""; [ $r = 2 ] && K="--no-check"
  cache r$r-rms4k-cache $B/morf-bench $R M=32768,N=4096
  run r$r-rms4k-reg4 $R M=32768,N=4096 "$F" "$X threads=256 min-ctas=4 chunk-major=true" $K
  run r$r-rms4k-sh4 $R M=32768,N=4096 "$F" "$H threads=256 min-ctas=4" $K
  run r$r-rms4k-sh3 $R M=32768,N=4096 "$F" "$H threads=256 min-ctas=3" $K
  cache r$r-ln4k-cache $B/morf-bench $L M=32768,N=4096
  run r$r-ln4k-sh4 $L M=32768,N=4096 "$F" "$H threads=256 min-ctas=4" $K
  run r$r-ln4k-sh3 $L M=32768,N=4096 "$F" "$H threads=256 min-ctas=3" $K
  cache r$r-rms8k-cache $B/morf-bench $R M=16384,N=8192
  run r$r-rms8k-sh512 $R M=16384,N=8192 "$F" "$H threads=512 min-ctas=2" $K
  run r$r-rms8k-sh256 $R M=16384,N=8192 "$F" "$H threads=256 min-ctas=2" $K
  cache r$r-ln8k-cache $B/morf-bench $L M=16384,N=8192
  run r$r-ln8k-sh512 $L M=16384,N=8192 "$F" "$H threads=512 min-ctas=2" $K
  run r$r-ln8k-sh256 $L M=16384,N=8192 "$F" "$H threads=256 min-ctas=2" $K
  cache r$r-rms16k-cache $B/morf-bench $R M=4096,N=16384
  run r$r-rms16k-sh1024 $R M=4096,N=16384 "$F" "$H threads=1024 min-ctas=1" $K
  run r$r-rms16k-sh512 $R M=4096,N=16384 "$F" "$H threads=512 min-ctas=1" $K
  cache r$r-ln16k-cache $B/morf-bench $L M=4096,N=16384
  run r$r-ln16k-sh1024 $L M=4096,N=16384 "$F" "$H threads=1024 min-ctas=1" $K
  run r$r-ln16k-sh512 $L M=4096,N=16384 "$F" "$H threads=512 min-ctas=1" $K
  cache r$r-rcs8k-A $B/old/morf-bench-A examples/row_col_stats.mlir M=16384,N=8192
  cache r$r-rcs8k-new $B/morf-bench examples/row_col_stats.mlir M=16384,N=8192
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
