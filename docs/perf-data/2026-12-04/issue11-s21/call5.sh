# Issue 11, twenty-first session, call 5: morf-tune LayerNorm 4096 x 16384 again (warm start,
# every knob and recipe, fp64 check) with the fixed recipe (a forced reload form now takes the
# CTA of 32 columns a thread, as the heuristic's does: call 4's recipe ran 1024 threads); then
# the table with the resulting cache and Inductor's default in the same call;
# compute-sanitizer memcheck and racecheck of the new schedules at odd M; dw/db bitwise over
# 10 fresh processes at LayerNorm 4096 x 16384.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 470 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=/tmp/h200.json; cp $B/h200.json $C; chmod u+w $C
timeout 100 $B/morf-tune examples/layernorm_bwd.mlir --sizes M=4096,N=16384 --cache $C --warm-start --rounds 1 --min-gain 0.005 \
  --max-trials 70 --runs 30 --final-runs 50 --json $OUT/json/tune-ln16k.json > $OUT/logs/tune-ln16k.txt 2> $OUT/logs/tune-ln16k.log
echo "tune ln16k rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' $OUT/logs/tune-ln16k.txt | tail -1)" >> $S
cp $C $OUT/h200.json
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
  sh=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16,4096x16384:bf16
  (cd $B/peers && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=$sh timeout 110 python3 anchors.py $op) > $OUT/logs/peers-$op.txt 2>&1
  echo "== Inductor default $op rc=$? t=$(( $(date +%s) - T0 ))" >> $S
  grep -E "copy bandwidth|inductor_mix" $OUT/logs/peers-$op.txt | grep -v kernels >> $S
done
san() { # label example sizes bucket-sizes
  local l=$1 ex=$2 sz=$3 hint=$4 tool
  $B/morf-opt examples/$ex.mlir --pipeline gpu --size-hints $hint --tuning-cache $C -o $OUT/logs/$l.mlir 2>> $OUT/logs/opt.txt || { echo "$l: morf-opt failed" >> $S; return; }
  grep -o 'morf.schedule = "[^"]*"' $OUT/logs/$l.mlir | head -1 | sed "s/^/$l: /" >> $S
  for tool in memcheck racecheck; do
    [ $(left) -lt 40 ] && { echo "$l $tool: skipped (deadline)" >> $S; continue; }
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/morf-run $OUT/logs/$l.mlir --device gpu --random $sz --output-dir /tmp/o-$l \
      > $OUT/logs/san-$l-$tool.txt 2>&1
    echo "$l $tool rc=$?: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/logs/san-$l-$tool.txt | head -1)" >> $S
  done
}
san ln16k layernorm_bwd M=1031,N=16384 M=4096,N=16384
san rms4k rmsnorm_bwd M=4099,N=4096 M=32768,N=4096
san ln1k layernorm_bwd M=65537,N=1024 M=65536,N=1024
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
det ln16k layernorm_bwd M=4096,N=16384 10
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
