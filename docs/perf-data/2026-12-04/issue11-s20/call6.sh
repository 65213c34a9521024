# Issue 11, twentieth session, call 6: 4096 x 16384 (no cache entry; LayerNorm's default reloads
# its row from L2 with the partials in shared memory, 57% of the floor). A cluster of four CTAs
# of 256 a row, three a SM, each CTA a quarter row in registers (ptxas: 80 / 77 registers, no
# spill with chunk-major), and a cluster of two of 512, one a SM (118 / 115), against the
# default; then morf-tune from the cluster-of-four entry over cluster, min-ctas, threads and
# chunk-major (checked against fp64), which stores its winner in the cache copy.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 570 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes fuse-opts lower-opts extra...
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 250 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 120 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [$lo $*]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
cache() { # label cache file sizes
  local l=$1 c=$2 f=$3 sz=$4; shift 4
  [ $(left) -lt 250 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 60 $B/morf-bench $f --tuning-cache $c --sizes $sz --warmup 10 --runs 100 --no-check --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [cache $c]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
F="partials=resident splits=32"
X="staged-rows=1 remat-converts=true interleave-splits=true rows-in-flight=1"
for r in 1 2; do
  echo "== round $r" >> $S
  K=""; [ $r = 2 ] && K="--no-check"
  cache r$r-ln16k-default none $L M=4096,N=16384
  run r$r-ln16k-c4 $L M=4096,N=16384 "$F" "$X cluster=4 threads=256 min-ctas=3 chunk-major=true" $K
  run r$r-ln16k-c2 $L M=4096,N=16384 "$F" "$X cluster=2 threads=512 min-ctas=1" $K
  cache r$r-rms16k-default none $R M=4096,N=16384
  run r$r-rms16k-c4 $R M=4096,N=16384 "$F" "$X cluster=4 threads=256 min-ctas=3" $K
  run r$r-rms16k-c2 $R M=4096,N=16384 "$F" "$X cluster=2 threads=256 min-ctas=2 chunk-major=true" $K
done
python3 - $C <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
X = 'cluster=4 interleave-splits=true min-ctas=3 remat-converts=true rows-in-flight=1 staged-rows=1 threads=256'
dev = {"name": "NVIDIA H200", "sms": 132, "driver": "13000"}
for fn, prog, extra in [('layernorm_bwd', '5ef0978c93a12236', ' chunk-major=true'), ('rmsnorm_bwd', 'e2e80b863069cbb0', '')]:
    d['entries'].append({'program': prog, 'function': fn, 'pipeline': 'gpu', 'bucket': 'M~2^12,N=16384', 'device': dev,
        'options': {'fuse-mixed-reductions': 'partials=resident splits=32', 'lower-loop-to-gpu': X + extra}, 'evidence': {'sizes': 'M=4096,N=16384', 'median_us': 0.0, 'default_us': 0.0, 'floor_us': 0.0, 'copy_tb_per_s': 0.0, 'tried': 0, 'timed': 0, 'runs': 0, 'checked': False}})
json.dump(d, open(p, 'w'), indent=2)
print('start entries added')
PY
tune() { # example sizes knobs trials timeout
  local e=$1 s=$2 k=$3 n=$4 to=$5 l=tune-$1-${2//[=,]/_}
  [ $(left) -lt $(( to + 10 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout $to $B/morf-tune examples/$e.mlir --sizes $s --cache $C --warm-start --knobs $k --rounds 1 --min-gain 0.005 \
    --max-trials $n --runs 30 --final-runs 50 --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "$l rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/$l.txt | tail -1)" >> $S
  tail -3 $OUT/logs/$l.log >> $S
}
tune layernorm_bwd M=4096,N=16384 cluster,min-ctas,threads,chunk-major 10 100
tune rmsnorm_bwd M=4096,N=16384 cluster,min-ctas,threads,chunk-major 10 100
cp $C $OUT/h200.json
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
