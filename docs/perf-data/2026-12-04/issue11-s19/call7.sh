# Issue 11, nineteenth session, call 7: a CTA per row's register partials stored once into
# the workspace (16-byte vectors, no fill, no read: this binary) against call 6's binary
# (.device-bin/old), alternating, the committed cache; LayerNorm 32768 x 4096 with the row in
# registers again; fp64 checks; compute-sanitizer on the new forms; determinism.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 560 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=$B/h200.json
bench() { # label binary-dir example sizes extra...
  local l=$1 bd=$2 e=$3 sz=$4; shift 4
  [ $(left) -lt 40 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 120 $bd/morf-bench examples/$e.mlir --tuning-cache $C --sizes $sz --warmup 10 --runs 100 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=$1 $2},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=$1 $3})"; }
runp() { # label binary-dir example sizes fuse lower extra...
  local l=$1 bd=$2 e=$3 sz=$4 fo=$5 lo=$6; shift 6
  [ $(left) -lt 40 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 120 $bd/morf-bench examples/$e.mlir --tuning-cache none --fused-pipeline "$(tp $sz "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
# fp64 checks with the new binary
for x in "rmsnorm_bwd M=32768,N=4096" "rmsnorm_bwd M=16384,N=8192" "layernorm_bwd M=32768,N=4096" "layernorm_bwd M=16384,N=8192" "layernorm_bwd M=4096,N=16384"; do
  set -- $x; bench chk-$1-$2 $B $1 $2
done
LX="staged-rows=1 rows-in-flight=1 remat-converts=true interleave-splits=true threads=256 min-ctas=3 chunk-major=true"
for r in 1 2; do
  echo "== round $r" >> $S
  for x in "rmsnorm_bwd M=32768,N=4096" "rmsnorm_bwd M=16384,N=8192" "layernorm_bwd M=32768,N=4096" "layernorm_bwd M=16384,N=8192" "rmsnorm_bwd M=4096,N=16384" "layernorm_bwd M=4096,N=16384"; do
    set -- $x
    bench r$r-old-$1-$2 $B/old $1 $2 --no-check
    bench r$r-new-$1-$2 $B $1 $2 --no-check
  done
  runp r$r-new-ln4k-regs $B layernorm_bwd M=32768,N=4096 "partials=resident splits=32" "$LX" --no-check
done
san() { # label example sizes pipeline
  local l=$1 ex=$2 sz=$3 p=$4 tool
  $B/morf-opt examples/$ex.mlir --pass-pipeline="$p" -o $OUT/logs/$l.mlir 2>> $OUT/logs/opt.txt || { echo "$l: morf-opt failed" >> $S; return; }
  for tool in memcheck racecheck; do
    [ $(left) -lt 60 ] && { echo "$l $tool: skipped (deadline)" >> $S; continue; }
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/morf-run $OUT/logs/$l.mlir --device gpu --random $sz --output-dir /tmp/o-$l \
      > $OUT/logs/san-$l-$tool.txt 2>&1
    echo "$l $tool rc=$?: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/logs/san-$l-$tool.txt | head -1)" >> $S
  done
}
RX="staged-rows=1 rows-in-flight=1 remat-converts=true interleave-splits=true threads=256"
san rms4k rmsnorm_bwd M=4099,N=4096 "$(tp M=4099,N=4096 "partials=resident splits=32" "$RX min-ctas=3 chunk-major=true")"
san rms8k rmsnorm_bwd M=1031,N=8192 "$(tp M=1031,N=8192 "partials=resident splits=32" "$RX min-ctas=2")"
san ln4k-cache layernorm_bwd M=4099,N=4096 "$(tp M=4099,N=4096 "partials=0" "min-ctas=none staged-rows=2")"
det() { # label example sizes runs
  local l=$1 ex=$2 sz=$3 n=$4 i
  for i in $(seq 1 $n); do
    [ $(left) -lt 15 ] && break
    timeout 30 $B/morf-run examples/$ex.mlir --device gpu --tuning-cache $C -v --random $sz --seed 7 --output-dir /tmp/det-$l-$i > $OUT/logs/det-$l-$i.txt 2>&1
  done
  grep -h -o 'tuned schedule.*' $OUT/logs/det-$l-1.txt | head -1 >> $S
  for r in $(ls /tmp/det-$l-1/ 2>/dev/null | grep -v result0); do
    echo "determinism $l $r: $(ls /tmp/det-$l-*/$r 2>/dev/null | wc -l) runs, $(md5sum /tmp/det-$l-*/$r 2>/dev/null | awk '{print $1}' | sort -u | wc -l) distinct" >> $S
  done
}
det rms4k rmsnorm_bwd M=32768,N=4096 10
det rms8k rmsnorm_bwd M=16384,N=8192 10
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
