# Issue 11, eighteenth session, call 1: balanced splits. The plan's splits are powers of two,
# so 16384 rows make 128 partials for 132 SMs (4 idle), 32768 rows 256 for 264 resident CTAs,
# 65536 rows of 512 make 128. Each row: the committed cache's schedule against the same
# schedule with the split that fills the grid exactly (fixed, and sized at run time),
# alternating, two timings each, unchecked.
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
R=examples/rmsnorm_bwd.mlir
L=examples/layernorm_bwd.mlir
for round in 1 2; do
  echo "== round $round" >> $S
  run r$round-rms8k-cache $R M=16384,N=8192 "" ""
  run r$round-rms8k-s125 $R M=16384,N=8192 "partials=0 splits=125" ""
  run r$round-rms8k-p132 $R M=16384,N=8192 "partials=132" ""
  run r$round-ln8k-cache $L M=16384,N=8192 "" ""
  run r$round-ln8k-s125 $L M=16384,N=8192 "partials=0 splits=125" ""
  run r$round-ln8k-p132 $L M=16384,N=8192 "partials=132" ""
  run r$round-rms4k-cache $R M=32768,N=4096 "partials=0" "threads=128"
  run r$round-rms4k-s125 $R M=32768,N=4096 "partials=0 splits=125" "threads=128"
  run r$round-rms4k-p264 $R M=32768,N=4096 "partials=264" "threads=128"
  run r$round-ln4k-cache $L M=32768,N=4096 "partials=0" "min-ctas=none staged-rows=2"
  run r$round-ln4k-s125 $L M=32768,N=4096 "partials=0 splits=125" "min-ctas=none staged-rows=2"
  run r$round-ln4k-p264 $L M=32768,N=4096 "partials=264" "min-ctas=none staged-rows=2"
  run r$round-rms1k-cache $R M=65536,N=1024 "partials=0 splits=512" "rows-in-flight=2"
  run r$round-rms1k-s497 $R M=65536,N=1024 "partials=0 splits=497" "rows-in-flight=2"
  run r$round-rms1k-s497i $R M=65536,N=1024 "partials=0 splits=497" "rows-in-flight=2 interleave-splits=true"
  run r$round-ln1k-cache $L M=65536,N=1024 "partials=0 splits=512" "interleave-splits=true rows-in-flight=2 staged-rows=4"
  run r$round-ln1k-s497i $L M=65536,N=1024 "partials=0 splits=497" "interleave-splits=true rows-in-flight=2 staged-rows=4"
  run r$round-ln1k-s497 $L M=65536,N=1024 "partials=0 splits=497" "rows-in-flight=2 staged-rows=4"
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
