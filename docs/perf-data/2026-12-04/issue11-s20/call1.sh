# Issue 11, twentieth session, call 1: more rows in flight a SM for the long rows and a CTA per
# row at N = 1024, all without spills by ptxas (checked offline):
#   32768 x 4096: two CTAs of 256 a SM, two rows in flight each (117 / 120 registers);
#                 two CTAs of 512, two rows each (RMSNorm only: 64 registers)
#   16384 x 8192: one CTA of 512 a SM, two rows in flight (119 / 126 registers)
#   65536 x 1024: a CTA of 128 per row, eight a SM (64 registers) or six with two rows in flight
# Round 1 checks every variant against fp64; round 2 times them again unchecked, next to the cache.
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
  echo "$l rc=$? [$fo; $lo $*]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
cache() { # label file sizes
  [ $(left) -lt 20 ] && { echo "$1: skipped (deadline)" >> $S; return; }
  timeout 60 $B/morf-bench $2 --tuning-cache $C --sizes $3 --warmup 10 --runs 100 --no-check --json $OUT/json/$1.json > $OUT/logs/$1.txt 2>&1
  echo "$1 rc=$? [cache]: $(grep -o 'median [0-9.]* us' $OUT/logs/$1.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$1.txt | awk -F'|' '{print $8}')" >> $S
}
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
X="staged-rows=1 remat-converts=true interleave-splits=true"; F="partials=resident splits=32"
V4a="$X rows-in-flight=2 threads=256 min-ctas=2"
V4b="$X rows-in-flight=2 threads=512 min-ctas=2"
V8="$X rows-in-flight=2 threads=512 min-ctas=1"
V1a="$X rows-in-flight=1 threads=128 threads-per-row=128 min-ctas=8"
V1b="$X rows-in-flight=2 threads=128 threads-per-row=128 min-ctas=6"
for r in 1 2; do
  echo "== round $r" >> $S
  K=""; [ $r = 2 ] && K="--no-check"
  cache r$r-rms4k-cache $R M=32768,N=4096
  run r$r-rms4k-a $R M=32768,N=4096 "$F" "$V4a" $K
  run r$r-rms4k-b $R M=32768,N=4096 "$F" "$V4b" $K
  cache r$r-ln4k-cache $L M=32768,N=4096
  run r$r-ln4k-a $L M=32768,N=4096 "$F" "$V4a" $K
  run r$r-ln4k-acm $L M=32768,N=4096 "$F" "$V4a chunk-major=true" $K
  cache r$r-rms8k-cache $R M=16384,N=8192
  run r$r-rms8k $R M=16384,N=8192 "$F" "$V8" $K
  cache r$r-ln8k-cache $L M=16384,N=8192
  run r$r-ln8k $L M=16384,N=8192 "$F" "$V8" $K
  cache r$r-rms1k-cache $R M=65536,N=1024
  run r$r-rms1k-a $R M=65536,N=1024 "$F" "$V1a" $K
  run r$r-rms1k-b $R M=65536,N=1024 "$F" "$V1b" $K
  cache r$r-ln1k-cache $L M=65536,N=1024
  run r$r-ln1k-a $L M=65536,N=1024 "$F" "$V1a" $K
  run r$r-ln1k-b $L M=65536,N=1024 "$F" "$V1b" $K
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
