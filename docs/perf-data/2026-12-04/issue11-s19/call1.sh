# Issue 11, nineteenth session, call 1: a Triton probe of launch structures for long rows
# (probe_rows.py: one program a row, static / interleaved / dynamic persistent grids) beside
# morf's rownorm and RMSNorm backward at the same shapes, in one call.
set -u
B=.device-bin
T0=$(date +%s)
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
P=docs/perf-data/2026-12-03/issue11-s16/programs
m() { # label file sizes
  timeout 60 $B/morf-bench $2 --tuning-cache $B/h200.json --sizes $3 --warmup 10 --runs 100 --no-check --json $OUT/json/$1.json > $OUT/logs/$1.txt 2>&1
  echo "morf $1 rc=$? $(grep -E '^\| [0-9]' $OUT/logs/$1.txt | head -3)" >> $S
}
m rownorm-8192 $P/rownorm.mlir M=16384,N=8192
m rownorm-4096 $P/rownorm.mlir M=32768,N=4096
m rms-8192 examples/rmsnorm_bwd.mlir M=16384,N=8192
m rms-4096 examples/rmsnorm_bwd.mlir M=32768,N=4096
SHAPES=16384x8192,32768x4096 timeout 400 python3 docs/perf-data/2026-12-04/issue11-s19/probe_rows.py > $OUT/logs/probe.txt 2>&1
echo "probe rc=$? t=$(( $(date +%s) - T0 ))" >> $S
cat $OUT/logs/probe.txt | grep -v Warning >> $S
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
