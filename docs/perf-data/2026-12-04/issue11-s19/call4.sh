# Issue 11, nineteenth session, call 4: call 3 again with `splits=32`: the plan's 128-row
# split had held the run-time split's CTAs to 256 (N = 4096) and 128 (N = 8192) whatever the
# occupancy; morf's PTX and sink_converts.py's, alternating, two rounds.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 540 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes fuse-opts lower-opts extra...
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 20 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 120 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [$fo; $lo $*]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
X="threads=256 staged-rows=1 rows-in-flight=1"; F="partials=resident splits=32"
run chk-rms4k-mc3-sunk $R M=32768,N=4096 "$F" "$X min-ctas=3" --ptx $B/ptx/rms4k-mc3-sunk.ptx
run chk-rms8k-mc2 $R M=16384,N=8192 "$F" "$X min-ctas=2"
for r in 1 2; do
  echo "== round $r" >> $S
  for v in rms4k-mc3 rms4k-mc3-il; do o="$X min-ctas=3"; [ $v = rms4k-mc3-il ] && o="$o interleave-splits=true"
    run r$r-$v $R M=32768,N=4096 "$F" "$o" --no-check
    run r$r-$v-sunk $R M=32768,N=4096 "$F" "$o" --no-check --ptx $B/ptx/$v-sunk.ptx
  done
  run r$r-rms4k-mcnone $R M=32768,N=4096 "$F" "$X min-ctas=none" --no-check
  run r$r-rms4k-mc4 $R M=32768,N=4096 "$F" "$X min-ctas=4" --no-check
  run r$r-rms4k-mc3-s16 $R M=32768,N=4096 "partials=resident splits=16" "$X min-ctas=3" --no-check
  for v in rms8k-mc2 rms8k-mc2-il; do o="$X min-ctas=2"; [ $v = rms8k-mc2-il ] && o="$o interleave-splits=true"
    run r$r-$v $R M=16384,N=8192 "$F" "$o" --no-check
    run r$r-$v-sunk $R M=16384,N=8192 "$F" "$o" --no-check --ptx $B/ptx/$v-sunk.ptx
  done
  for v in ln4k-mc3 ln4k-mc3-il; do o="$X min-ctas=3"; [ $v = ln4k-mc3-il ] && o="$o interleave-splits=true"
    run r$r-$v $L M=32768,N=4096 "$F" "$o" --no-check
  done
  run r$r-ln4k-mc2 $L M=32768,N=4096 "$F" "$X min-ctas=2" --no-check
  run r$r-ln8k-mc2 $L M=16384,N=8192 "$F" "$X min-ctas=2" --no-check
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
