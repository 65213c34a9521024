# Issue 11, fifteenth session, call 3: LayerNorm at 100000 x 32768; f32 rows of 32768 with
# one and two cluster barriers per reduction (call 2's f32 comparison ran the wrong file);
# LayerNorm 4096 x 16384 with a cluster of 2, alternating binaries; small shapes per kernel.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 545 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
bench() { # label binary-dir example sizes pipeline-options timeout extra...
  local l=$1 bd=$2 e=$3 sz=$4 o=$5 to=$6 p; shift 6
  [ $(left) -lt $(( to / 2 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  if [ -z "$o" ]; then p=gpu; else p="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu$o)"; fi
  timeout $to $bd/morf-bench examples/$e.mlir --tuning-cache none --fused-pipeline "$p" --sizes $sz \
    --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us\|check[^,]*\|[0-9.]*% |' $OUT/logs/$l.txt | head -4 | tr '\n' ' ')" >> $S
}
bench ln-100000x32768 $B layernorm_bwd M=100000,N=32768 "" 150 --no-check --runs 30
for ex in rmsnorm_bwd_f32 layernorm_bwd_f32; do
  bench $ex-32768-old $B/old $ex M=2048,N=32768 "" 40 --runs 100 --no-check
  bench $ex-32768-new $B $ex M=2048,N=32768 "" 40 --runs 100 --no-check
done
for r in 1 2; do
  bench ln-16384-c2-old-$r $B/old layernorm_bwd M=4096,N=16384 "{cluster=2}" 40 --runs 100 --no-check
  bench ln-16384-c2-new-$r $B layernorm_bwd M=4096,N=16384 "{cluster=2}" 40 --runs 100 --no-check
done
for ex in rmsnorm_bwd layernorm_bwd; do
  for sz in M=32768,N=768 M=131072,N=256 M=8388608,N=2; do
    bench $ex-${sz//[=,]/_}-pk $B $ex $sz "" 40 --runs 100 --no-check --per-kernel
  done
done
cd $OUT && tar czf raw.tgz logs json; cd - >/dev/null
echo "elapsed $(( $(date +%s) - T0 )) s" >> $S
cat $S
grep -h "launch [0-9] @\|fused: median" $OUT/logs/*-pk.txt
