# Issue 11, eighteenth session, call 6: LayerNorm 576000 x 384 with 16 lanes a row and fewer
# registers (shared accumulators, staged rows; ptxas: 211 registers without them, so one CTA
# of 8 warps a SM); then the new cache entries' combinations (the run-time split with
# interleaved splits, staged rows with interleaved splits) under compute-sanitizer at odd
# shapes, checked against fp64 at odd shapes, and dw over fresh processes (determinism).
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 570 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tpb() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes fuse-opts lower-opts extra...
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 30 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 60 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tpb "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $4, $8}')" >> $S
}
L=examples/layernorm_bwd.mlir
Z=M=576000,N=384
for round in 1 2; do
  echo "== round $round" >> $S
  run r$round-ln-cache $L $Z "partials=264 splits=256" "staged-rows=4" --no-check
  run r$round-ln-16-st2-sa $L $Z "partials=resident" "threads-per-row=16 staged-rows=2 shared-accs=true" --no-check
  run r$round-ln-16-st2-sa-t128 $L $Z "partials=resident" "threads-per-row=16 staged-rows=2 shared-accs=true threads=128" --no-check
  run r$round-ln-16-st4-sa-t128 $L $Z "partials=resident" "threads-per-row=16 staged-rows=4 shared-accs=true threads=128" --no-check
  run r$round-ln-16-st4-sa $L $Z "partials=resident" "threads-per-row=16 staged-rows=4 shared-accs=true" --no-check
  run r$round-ln-16-i-sa $L $Z "partials=resident" "threads-per-row=16 interleave-splits=true shared-accs=true" --no-check
done
echo "== fp64 checks (morf-bench's check of every output) at odd shapes" >> $S
run chk-rmsf examples/rmsnorm_bwd_f32.mlir M=5003,N=384 "partials=resident" "interleave-splits=true staged-rows=2" --runs 5
run chk-rms1k examples/rmsnorm_bwd.mlir M=4099,N=1024 "partials=132" "interleave-splits=true rows-in-flight=2" --runs 5
run chk-ln1k $L M=4099,N=1000 "partials=132" "interleave-splits=true rows-in-flight=2 staged-rows=4" --runs 5
echo "== compute-sanitizer" >> $S
san() { # label example sizes pipeline
  local l=$1 ex=$2 sz=$3 p=$4 tool
  $B/morf-opt examples/$ex.mlir --pass-pipeline="$p" -o $OUT/logs/$l.mlir 2>> $OUT/logs/opt.txt || { echo "$l: morf-opt failed" >> $S; return; }
  for tool in memcheck racecheck; do
    [ $(left) -lt 70 ] && { echo "$l $tool: skipped (deadline)" >> $S; continue; }
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/morf-run $OUT/logs/$l.mlir --device gpu --random $sz --output-dir /tmp/o-$l \
      > $OUT/logs/san-$l-$tool.txt 2>&1
    echo "$l $tool rc=$?: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/logs/san-$l-$tool.txt | head -1)" >> $S
  done
}
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=$1 $2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=$1 $3})"; }
san rmsf-st2-i rmsnorm_bwd_f32 M=5003,N=384 "$(tp M=5003,N=384 partials=resident "interleave-splits=true staged-rows=2")"
san rms-p132-i rmsnorm_bwd M=4099,N=1024 "$(tp M=4099,N=1024 partials=132 "interleave-splits=true rows-in-flight=2")"
san ln-p132-i-st4 layernorm_bwd M=4099,N=1000 "$(tp M=4099,N=1000 partials=132 "interleave-splits=true rows-in-flight=2 staged-rows=4")"
echo "== determinism (the new cache's entries, fresh processes, same inputs)" >> $S
det() { # label example sizes runs
  local l=$1 ex=$2 sz=$3 n=$4 i
  for i in $(seq 1 $n); do
    [ $(left) -lt 15 ] && break
    timeout 30 $B/morf-run examples/$ex.mlir --device gpu --tuning-cache $B/h200.json -v --random $sz --seed 7 --output-dir /tmp/det-$l-$i > $OUT/logs/det-$l-$i.txt 2>&1
  done
  grep -h -o 'tuned schedule.*' $OUT/logs/det-$l-1.txt | head -1 >> $S
  for r in $(ls /tmp/det-$l-1/ 2>/dev/null | grep -v result0); do
    echo "determinism $l $r: $(ls /tmp/det-$l-*/$r 2>/dev/null | wc -l) runs, $(md5sum /tmp/det-$l-*/$r 2>/dev/null | awk '{print $1}' | sort -u | wc -l) distinct" >> $S
  done
}
det rms1k rmsnorm_bwd M=65536,N=1024 12
det ln1k layernorm_bwd M=65536,N=1024 12
det rmsf rmsnorm_bwd_f32 M=576000,N=384 8
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
