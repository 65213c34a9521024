#!/usr/bin/env bash
# Session 7, call 1: the math sequences and the examples on the GPU, then every example at 65536 x 1024.
set -uo pipefail
B=.device-bin
mkdir -p $OUT
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
BIN=$B OUT=$OUT/dt STEPS="math examples" T_MATH=70 T_EXAMPLES=110 timeout 200 bash tools/morf-run/scripts/gpu-difftest.sh run > $OUT/dt.txt 2>&1
echo "difftest rc=$?"; tail -22 $OUT/dt.txt
BIN=$B RUNS=20 LIMIT=35 MODE=final OUT=$OUT/final timeout 360 bash $B/calibrate.sh default- > /dev/null 2>&1
echo "== final (65536 x 1024)"
awk '{printf "%-34s %s %s ", $1, $5, $6; for(i=7;i<=NF;i++) printf "%s ", $i; print ""}' $OUT/final/summary.txt | sed 's/default-//'
