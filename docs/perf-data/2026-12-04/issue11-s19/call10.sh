# Issue 11, nineteenth session, call 10: remat-converts at warp reductions too (this binary):
# a warp (or 16 lanes) per row with two (three) CTAs a SM at 65536 x 1024 and 576000 x 384;
# against the committed cache, two rounds; the first round checked against fp64.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 200 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=$B/h200.json
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes fuse-opts lower-opts extra...
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 15 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 60 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [$fo; $lo]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
cache() { # label file sizes
  [ $(left) -lt 15 ] && { echo "$1: skipped (deadline)" >> $S; return; }
  timeout 60 $B/morf-bench $2 --tuning-cache $C --sizes $3 --warmup 10 --runs 100 --no-check --json $OUT/json/$1.json > $OUT/logs/$1.txt 2>&1
  echo "$1 rc=$? [cache]: $(grep -o 'median [0-9.]* us' $OUT/logs/$1.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$1.txt | awk -F'|' '{print $8}')" >> $S
}
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
W="interleave-splits=true rows-in-flight=1 min-ctas=2 remat-converts=true"
L3="chunk-major=true shared-accs=true staged-rows=2 threads-per-row=16 remat-converts=true"
for r in 1 2; do
  echo "== round $r" >> $S
  ck=--no-check; [ $r = 1 ] && ck=
  cache r$r-rms1k-cache $R M=65536,N=1024
  run r$r-rms1k-cm $R M=65536,N=1024 partials=resident "$W chunk-major=true" $ck
  run r$r-rms1k-sa $R M=65536,N=1024 partials=resident "$W shared-accs=true" --no-check
  cache r$r-ln1k-cache $L M=65536,N=1024
  run r$r-ln1k-sa $L M=65536,N=1024 partials=resident "$W shared-accs=true" $ck
  run r$r-ln1k-sa-ea $L M=65536,N=1024 partials=resident "$W shared-accs=true early-accumulates=true" --no-check
  cache r$r-ln384-cache $L M=576000,N=384
  run r$r-ln384-mc3 $L M=576000,N=384 partials=resident "$L3 min-ctas=3" $ck
  run r$r-ln384-remat $L M=576000,N=384 partials=resident "$L3" --no-check
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
