#!/usr/bin/env bash
# Session 7, call 4: A/B of the rows-in-flight rule, then every example at 65536 x 1024 and the benchmark rows.
set -uo pipefail
B=.device-bin
mkdir -p $OUT
S=M=65536,N=1024
printf 'softmax_fwd_colsum-r1|examples/softmax_fwd_colsum.mlir|%s||rows-in-flight=1|\nlayernorm_fwd-r2|examples/layernorm_fwd.mlir|%s||rows-in-flight=2|\nlogsoftmax_bwd_colsum-r2|examples/logsoftmax_bwd_colsum.mlir|%s||rows-in-flight=2|\n' $S $S $S > $OUT/ab.list
BIN=$B RUNS=20 LIMIT=30 MODE=list LIST=$OUT/ab.list OUT=$OUT/ab timeout 100 bash $B/calibrate.sh > /dev/null 2>&1
BIN=$B RUNS=20 LIMIT=45 MODE=final OUT=$OUT/final timeout 420 bash $B/calibrate.sh > /dev/null 2>&1
for f in ab final; do awk '{printf "%-36s %s %s ", $1, $5, $6; for(i=7;i<=NF;i++) printf "%s ", $i; print ""}' $OUT/$f/summary.txt | sed 's/default-//'; done
