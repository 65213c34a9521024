# Issue 11, eighteenth session, call 5: morf-tune stores the winners of calls 1-4, checked
# against fp64: the committed cache's entries for RMSNorm f32 576000 x 384 and both norms at
# 65536 x 1024 are replaced by the found schedules as the search's starting points
# (--warm-start), and the tuner times them against the untuned schedule (and one knob around
# them); then the rows with the new cache and Inductor's defaults in the same call.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 570 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
python3 - $C <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
start = {
  ('rmsnorm_bwd', 'M~2^19,N=384', 'b2f96f76fd3948c3'): {'fuse-mixed-reductions': 'partials=resident', 'lower-loop-to-gpu': 'interleave-splits=true staged-rows=2'},
  ('rmsnorm_bwd', 'M~2^16,N=1024', 'e2e80b863069cbb0'): {'fuse-mixed-reductions': 'partials=132', 'lower-loop-to-gpu': 'interleave-splits=true rows-in-flight=2'},
  ('layernorm_bwd', 'M~2^16,N=1024', '5ef0978c93a12236'): {'fuse-mixed-reductions': 'partials=132', 'lower-loop-to-gpu': 'interleave-splits=true rows-in-flight=2 staged-rows=4'},
}
n = 0
for e in d['entries']:
    k = (e['function'], e['bucket'], e['program'])
    if k in start:
        e['options'] = start[k]; n += 1
json.dump(d, open(p, 'w'), indent=2)
print('start entries set:', n)
PY
tune() { # example sizes knobs trials timeout
  local e=$1 s=$2 k=$3 n=$4 to=$5 l=tune-$1-${2//[=,]/_}
  [ $(left) -lt $(( to + 200 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout $to $B/morf-tune examples/$e.mlir --sizes $s --cache $C --warm-start --knobs $k --rounds 1 \
    --max-trials $n --runs 30 --final-runs 50 --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "$l rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/$l.txt | tail -1)" >> $S
}
tune rmsnorm_bwd_f32 M=576000,N=384 interleave-splits 3 150
tune rmsnorm_bwd M=65536,N=1024 interleave-splits 3 60
tune layernorm_bwd M=65536,N=1024 interleave-splits 3 60
cp $C $OUT/h200.json
bench() { # label file sizes...
  local l=$1 f=$2; shift 2
  [ $(left) -lt 100 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 90 $B/morf-bench $f "$@" --no-check --runs 100 --warmup 10 --tuning-cache $C --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "== $l rc=$? t=$(( $(date +%s) - T0 )) $(grep -o 'copy: .*' $OUT/logs/$l.log | head -1)" >> $S
  grep -E '^\| [0-9]' $OUT/logs/$l.txt >> $S
}
bench bench-rms examples/rmsnorm_bwd.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192
bench bench-rmsf examples/rmsnorm_bwd_f32.mlir --sizes M=576000,N=384
bench bench-ln examples/layernorm_bwd.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192
for op in rms ln; do
  [ $(left) -lt 50 ] && { echo "peers $op: skipped (deadline)" >> $S; continue; }
  sh=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16; [ $op = rms ] && sh=576000x384:f32,$sh
  (cd $B/peers && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=$sh timeout $(( $(left) - 10 )) python3 anchors.py $op) > $OUT/logs/peers-$op.txt 2>&1
  echo "== Inductor default $op rc=$? t=$(( $(date +%s) - T0 ))" >> $S
  grep -E "copy bandwidth|inductor_mix" $OUT/logs/peers-$op.txt | grep -v kernels >> $S
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
