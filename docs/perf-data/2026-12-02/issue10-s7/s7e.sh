#!/usr/bin/env bash
# Session 7, call 5: the register-bounded grid and the per-thread heavy-row rule: every example at 65536 x 1024, the 576000 x 384 rows, A/B against the old grids.
set -uo pipefail
B=.device-bin
mkdir -p $OUT
S=M=65536,N=1024
{
echo "row_col_stats-g396|examples/row_col_stats.mlir|$S||grid=396|"
echo "colmax_rowsum-g396|examples/colmax_rowsum.mlir|$S||grid=396|"
echo "rmsnorm_bwd-g256|examples/rmsnorm_bwd.mlir|$S||grid=256|"
echo "bench-layernorm_bwd-576000|examples/layernorm_bwd.mlir|M=576000,N=384|||"
echo "bench-rmsnorm_bwd-576000|examples/rmsnorm_bwd.mlir|M=576000,N=384|||"
} > $OUT/ab.list
BIN=$B RUNS=20 LIMIT=45 MODE=list LIST=$OUT/ab.list OUT=$OUT/ab timeout 170 bash $B/calibrate.sh > /dev/null 2>&1
BIN=$B RUNS=20 LIMIT=30 MODE=final OUT=$OUT/final timeout 240 bash $B/calibrate.sh default- > /dev/null 2>&1
for f in ab final; do awk '{printf "%-30s %s %s ", $1, $5, $6; for(i=7;i<=NF;i++) printf "%s ", $i; print ""}' $OUT/$f/summary.txt | sed 's/default-//'; done
