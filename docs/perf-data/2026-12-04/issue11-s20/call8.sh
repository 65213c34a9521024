# Issue 11, twentieth session, call 8: the table with the cache call 7 stored (LayerNorm
# 576000 x 384: 16 lanes a row at three CTAs a SM with remat-converts; RMSNorm 32768 x 4096:
# two rows staged), Inductor's default in the same call; compute-sanitizer memcheck and
# racecheck of the two new schedules at odd M; dw/db bitwise over 10 fresh processes each.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 380 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=$B/h200.json
bench() { # label file sizes...
  local l=$1 f=$2; shift 2
  [ $(left) -lt 60 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 90 $B/morf-bench $f "$@" --no-check --runs 100 --warmup 10 --tuning-cache $C --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "== $l rc=$? t=$(( $(date +%s) - T0 )) $(grep -o 'copy: .*' $OUT/logs/$l.log | head -1)" >> $S
  grep -E '^\| [0-9]' $OUT/logs/$l.txt >> $S
}
bench bench-rms examples/rmsnorm_bwd.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=4096,N=16384
bench bench-ln examples/layernorm_bwd.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=4096,N=16384
for op in rms ln; do
  [ $(left) -lt 150 ] && { echo "peers $op: skipped (deadline)" >> $S; continue; }
  sh=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16
  (cd $B/peers && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=$sh timeout 100 python3 anchors.py $op) > $OUT/logs/peers-$op.txt 2>&1
  echo "== Inductor default $op rc=$? t=$(( $(date +%s) - T0 ))" >> $S
  grep -E "copy bandwidth|inductor_mix" $OUT/logs/peers-$op.txt | grep -v kernels >> $S
done
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=$1 $2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=$1 $3})"; }
san() { # label example sizes pipeline
  local l=$1 ex=$2 sz=$3 p=$4 tool
  $B/morf-opt examples/$ex.mlir --pass-pipeline="$p" -o $OUT/logs/$l.mlir 2>> $OUT/logs/opt.txt || { echo "$l: morf-opt failed" >> $S; return; }
  for tool in memcheck racecheck; do
    [ $(left) -lt 40 ] && { echo "$l $tool: skipped (deadline)" >> $S; continue; }
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/morf-run $OUT/logs/$l.mlir --device gpu --random $sz --output-dir /tmp/o-$l \
      > $OUT/logs/san-$l-$tool.txt 2>&1
    echo "$l $tool rc=$?: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/logs/san-$l-$tool.txt | head -1)" >> $S
  done
}
san ln384 layernorm_bwd M=20011,N=384 "$(tp M=576000,N=384 "partials=resident splits=32" "chunk-major=true interleave-splits=true min-ctas=3 remat-converts=true rows-in-flight=1 shared-accs=true staged-rows=1 threads-per-row=16")"
san rms4k rmsnorm_bwd M=4099,N=4096 "$(tp M=32768,N=4096 "partials=resident splits=32" "chunk-major=true interleave-splits=true min-ctas=3 remat-converts=true rows-in-flight=1 staged-rows=2 threads=256")"
det() { # label example sizes runs
  local l=$1 ex=$2 sz=$3 n=$4 i
  for i in $(seq 1 $n); do
    [ $(left) -lt 10 ] && break
    timeout 30 $B/morf-run examples/$ex.mlir --device gpu --tuning-cache $C -v --random $sz --seed 7 --output-dir /tmp/det-$l-$i > $OUT/logs/det-$l-$i.txt 2>&1
  done
  grep -h -o 'tuned schedule.*' $OUT/logs/det-$l-1.txt | head -1 >> $S
  for r in $(ls /tmp/det-$l-1/ 2>/dev/null | grep -v result0); do
    echo "determinism $l $r: $(ls /tmp/det-$l-*/$r 2>/dev/null | wc -l) runs, $(md5sum /tmp/det-$l-*/$r 2>/dev/null | awk '{print $1}' | sort -u | wc -l) distinct" >> $S
  done
}
det ln384 layernorm_bwd M=576000,N=384 10
det rms4k rmsnorm_bwd M=32768,N=4096 10
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
