# Issue 11, nineteenth session, call 2: morf's CTA-per-row kernels at N = 8192 and 4096
# against call 1's Triton probe (one program a row: 99-100% of the floor; morf 85-89%):
# rownorm (dx alone) and RMSNorm backward over staging, rows in flight, CTAs per SM and
# CTA size; unchecked, one timing each (a second round for the best at the end).
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 540 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes fuse-opts lower-opts
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 20 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 30 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 --no-check \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$? [$lo]: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
RN=docs/perf-data/2026-12-03/issue11-s16/programs/rownorm.mlir
R=examples/rmsnorm_bwd.mlir
for sz in M=16384,N=8192 M=32768,N=4096; do
  n=${sz#*N=}
  echo "== rownorm $sz" >> $S
  run rn$n-default $RN $sz "" ""
  for st in 1 2; do for rif in 1 2; do for g in 132 264 396 528 792; do
    run rn$n-st$st-rif$rif-g$g $RN $sz "" "threads=256 staged-rows=$st rows-in-flight=$rif grid=$g min-ctas=none"
  done; done; done
  for th in 128 512; do for g in 264 528 1056; do
    run rn$n-t$th-g$g $RN $sz "" "threads=$th staged-rows=1 rows-in-flight=1 grid=$g min-ctas=none"
  done; done
done
for sz in M=16384,N=8192 M=32768,N=4096; do
  n=${sz#*N=}
  echo "== rmsnorm $sz" >> $S
  run rms$n-default $R $sz "partials=resident" ""
  for il in false true; do for sa in false true; do for st in 1 2; do
    run rms$n-il$il-sa$sa-st$st $R $sz "partials=resident" "threads=256 staged-rows=$st rows-in-flight=1 interleave-splits=$il shared-accs=$sa min-ctas=none"
  done; done; done
  for mc in 2 3 4; do
    run rms$n-sa-mc$mc $R $sz "partials=resident" "threads=256 staged-rows=1 rows-in-flight=1 interleave-splits=true shared-accs=true min-ctas=$mc"
  done
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
