# Issue 11, twentieth session, call 2: call 1 found every cached CTA-per-row row 3-5% slower than
# the nineteenth session's table. Three binaries on the cached schedules, alternating:
#   A = HEAD (scalar workspace stores, remat-converts at barriers and warp reductions)
#   B = A with 16-byte vector stores of a CTA per row's partials into the workspace
#   C = B with remat-converts at barriers only
# Round 1 checks B against fp64.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 570 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=$B/h200.json
cache() { # label binary file sizes extra
  local l=$1 bin=$2 f=$3 sz=$4; shift 4
  [ $(left) -lt 20 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 60 $bin $f --tuning-cache $C --sizes $sz --warmup 10 --runs 100 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
for r in 1 2; do
  echo "== round $r" >> $S
  for sh in rms:32768x4096 ln:32768x4096 rms:16384x8192 ln:16384x8192 rms:4096x16384 ln:4096x16384; do
    p=${sh%%:*}; m=${sh#*:}; f=$R; [ $p = ln ] && f=$L; sz="M=${m%x*},N=${m#*x}"
    for v in A B C; do
      bin=$B/morf-bench; [ $v != A ] && bin=$B/old/morf-bench-$v
      K="--no-check"; [ $r = 1 ] && [ $v = B ] && K=""
      cache r$r-$p-$m-$v $bin $f $sz $K
    done
  done
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
