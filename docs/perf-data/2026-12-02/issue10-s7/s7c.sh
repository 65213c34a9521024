#!/usr/bin/env bash
# Session 7, call 3: rows in flight for the bias gradients with the shorter math.
set -uo pipefail
B=.device-bin
mkdir -p $OUT
S=M=65536,N=1024
{
for ex in gelu_bwd_bias tanh_bwd_bias; do
  echo "$ex-r2|examples/$ex.mlir|$S||rows-in-flight=2|"
  echo "$ex-r2-w4-S128|examples/$ex.mlir|$S|128|rows-in-flight=2 rows-per-cta=4|"
  echo "$ex-r1-w4-S128|examples/$ex.mlir|$S|128|rows-in-flight=1 rows-per-cta=4|"
  echo "$ex-r2-S512|examples/$ex.mlir|$S|512|rows-in-flight=2|"
  echo "$ex-large|examples/$ex.mlir|M=16384,N=8192|||"
done
echo "softmax_fwd_colsum-large|examples/softmax_fwd_colsum.mlir|M=16384,N=8192|||"
echo "row_col_stats-r2|examples/row_col_stats.mlir|$S||rows-in-flight=2|"
} > $OUT/c.list
BIN=$B RUNS=20 LIMIT=30 MODE=list LIST=$OUT/c.list OUT=$OUT/c timeout 330 bash $B/calibrate.sh > /dev/null 2>&1
awk '{printf "%-28s %s %s %s ", $1, $3, $5, $6; for(i=7;i<=NF;i++) printf "%s ", $i; print ""}' $OUT/c/summary.txt
