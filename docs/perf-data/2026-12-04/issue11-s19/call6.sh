# Issue 11, nineteenth session, call 6: morf-tune stores call 5's RMSNorm winners at
# 32768 x 4096 and 16384 x 8192 (warm start from them, checked against fp64); LayerNorm
# 32768 x 4096 with chunk-major (no spill at 80 registers); a cluster of two per row at
# 4096 x 16384 with the row in registers; alternating with the cache, unchecked.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 560 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
python3 - $C <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
X = 'interleave-splits=true min-ctas={} remat-converts=true rows-in-flight=1 staged-rows=1 threads=256'
start = {
  ('rmsnorm_bwd', 'M~2^15,N=4096'): {'fuse-mixed-reductions': 'partials=resident splits=32', 'lower-loop-to-gpu': 'chunk-major=true ' + X.format(3)},
  ('rmsnorm_bwd', 'M~2^14,N=8192'): {'fuse-mixed-reductions': 'partials=resident splits=32', 'lower-loop-to-gpu': X.format(2)},
}
n = 0
for e in d['entries']:
    k = (e['function'], e['bucket'])
    if k in start and e['program'] == 'e2e80b863069cbb0':
        e['options'] = start[k]; n += 1
json.dump(d, open(p, 'w'), indent=2)
print('start entries set:', n)
PY
tune() { # example sizes knobs trials timeout
  local e=$1 s=$2 k=$3 n=$4 to=$5 l=tune-$1-${2//[=,]/_}
  [ $(left) -lt $(( to + 150 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout $to $B/morf-tune examples/$e.mlir --sizes $s --cache $C --warm-start --knobs $k --rounds 1 \
    --max-trials $n --runs 30 --final-runs 50 --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "$l rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/$l.txt | tail -1)" >> $S
}
tune rmsnorm_bwd M=32768,N=4096 chunk-major 3 120
tune rmsnorm_bwd M=16384,N=8192 chunk-major 3 120
cp $C $OUT/h200.json
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
X="staged-rows=1 rows-in-flight=1 remat-converts=true interleave-splits=true"; F="partials=resident splits=32"
run chk-ln4k $L M=32768,N=4096 "$F" "$X threads=256 min-ctas=3 chunk-major=true"
run chk-rms16k $R M=4096,N=16384 "$F" "$X cluster=2 threads=256 min-ctas=2"
for r in 1 2; do
  echo "== round $r" >> $S
  cache r$r-ln4k-cache $L M=32768,N=4096
  run r$r-ln4k-cm $L M=32768,N=4096 "$F" "$X threads=256 min-ctas=3 chunk-major=true" --no-check
  cache r$r-rms16k-cache $R M=4096,N=16384
  run r$r-rms16k-c2 $R M=4096,N=16384 "$F" "$X cluster=2 threads=256 min-ctas=2" --no-check
  run r$r-rms16k-c2-s $R M=4096,N=16384 "splits=32" "$X cluster=2 threads=256 min-ctas=2" --no-check
  cache r$r-ln16k-cache $L M=4096,N=16384
  run r$r-ln16k-c2 $L M=4096,N=16384 "$F" "$X cluster=2 threads=256 min-ctas=2 chunk-major=true" --no-check
  cache r$r-rms4k-cache $R M=32768,N=4096
  cache r$r-rms8k-cache $R M=16384,N=8192
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
