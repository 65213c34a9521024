#!/usr/bin/env bash
# Session 7, call 6: the final build on the rows that changed, and row_col_stats with CTAs of 4 warps.
set -uo pipefail
B=.device-bin
mkdir -p $OUT
S=M=65536,N=1024
{
for ex in tanh_bwd_bias gelu_bwd_bias softmax_fwd_colsum row_col_stats; do echo "$ex|examples/$ex.mlir|$S|||"; done
echo "row_col_stats-r2-w4-S128|examples/row_col_stats.mlir|$S|128|rows-in-flight=2 rows-per-cta=4|"
echo "row_col_stats-r2-w4|examples/row_col_stats.mlir|$S||rows-in-flight=2 rows-per-cta=4|"
echo "row_col_stats-r1-w4-S128|examples/row_col_stats.mlir|$S|128|rows-in-flight=1 rows-per-cta=4|"
echo "bench-layernorm_bwd-576000|examples/layernorm_bwd.mlir|M=576000,N=384|||"
echo "bench-rmsnorm_bwd-576000|examples/rmsnorm_bwd.mlir|M=576000,N=384|||"
} > $OUT/f.list
BIN=$B RUNS=20 LIMIT=40 MODE=list LIST=$OUT/f.list OUT=$OUT/f timeout 220 bash $B/calibrate.sh > /dev/null 2>&1
awk '{printf "%-30s %s %s %s ", $1, $3, $5, $6; for(i=7;i<=NF;i++) printf "%s ", $i; print ""}' $OUT/f/summary.txt
