# Issue 11, fifteenth session, call 3: rows of a split interleaved across CTAs; LayerNorm at 100000 x 32768; f32 rows of 32768 with
# one and two cluster barriers per reduction (call 2's f32 comparison ran the wrong file);
# LayerNorm 4096 x 16384 with a cluster of 2, alternating binaries; RMSNorm with a cluster
# of 4; small shapes per kernel.
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
# Split rows interleaved across CTAs (interleave-splits) against consecutive blocks, the
# committed cache's schedules spelled out, alternating.
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
ab() { # label example sizes fuse-opts lower-opts
  local l=$1 e=$2 sz=$3 f=$4 lo=$5 il
  for il in false true false true; do
    [ $(left) -lt 300 ] && return
    timeout 40 $B/morf-bench examples/$e.mlir --tuning-cache none --fused-pipeline "$(tp "$f" "$lo interleave-splits=$il")" --sizes $sz \
      --warmup 10 --runs 100 --no-check --json $OUT/json/il-$l-$il.json >> $OUT/logs/il-$l-$il.txt 2>&1
    echo "il $l $il: $(grep -o 'median [0-9.]* us' $OUT/logs/il-$l-$il.txt | tail -1)" >> $S
  done
}
ab rms-65536x1024 rmsnorm_bwd M=65536,N=1024 "0 splits=512" "rows-in-flight=2"
ab rms-32768x4096 rmsnorm_bwd M=32768,N=4096 "0" "threads=128"
ab rms-16384x8192 rmsnorm_bwd M=16384,N=8192 "0" ""
ab ln-65536x1024 layernorm_bwd M=65536,N=1024 "0 splits=512" "rows-in-flight=2 staged-rows=4"
ab ln-32768x4096 layernorm_bwd M=32768,N=4096 "0" "min-ctas=none staged-rows=2"
ab ln-16384x8192 layernorm_bwd M=16384,N=8192 "0" ""
ab rms-576000x384 rmsnorm_bwd M=576000,N=384 "528 splits=256" "threads-per-row=16 rows-in-flight=1"
ab ln-576000x384 layernorm_bwd M=576000,N=384 "264 splits=256" "staged-rows=4"
bench ln-100000x32768 $B layernorm_bwd M=100000,N=32768 "" 150 --no-check --runs 30
for ex in rmsnorm_bwd_f32 layernorm_bwd_f32; do
  bench $ex-32768-old $B/old $ex M=2048,N=32768 "" 40 --runs 100 --no-check
  bench $ex-32768-new $B $ex M=2048,N=32768 "" 40 --runs 100 --no-check
done
for r in 1 2; do
  bench ln-16384-c2-old-$r $B/old layernorm_bwd M=4096,N=16384 "{cluster=2}" 40 --runs 100 --no-check
  bench ln-16384-c2-new-$r $B layernorm_bwd M=4096,N=16384 "{cluster=2}" 40 --runs 100 --no-check
done
bench rms-32768-c4-old $B/old rmsnorm_bwd M=8192,N=32768 "{cluster=4}" 40 --runs 100 --no-check --per-kernel
bench rms-32768-c4-new $B rmsnorm_bwd M=8192,N=32768 "{cluster=4}" 40 --runs 100 --no-check --per-kernel
for ex in rmsnorm_bwd layernorm_bwd; do
  for sz in M=32768,N=768; do
    bench $ex-${sz//[=,]/_}-pk $B $ex $sz "" 40 --runs 100 --no-check --per-kernel
  done
done
cd $OUT && tar czf raw.tgz logs json; cd - >/dev/null
echo "elapsed $(( $(date +%s) - T0 )) s" >> $S
cat $S
grep -h "launch [0-9] @\|fused: median" $OUT/logs/*-pk.txt
