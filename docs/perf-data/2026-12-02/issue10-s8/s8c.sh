#!/usr/bin/env bash
# Session 8, call 3 (final tree): the GPU difftest (math, examples at odd shapes, determinism of
# dw/db over 100 calls) with final=grid and the new erf, then every example at 65536 x 1024 and
# the benchmark rows (MODE=final).
set -uo pipefail
B=.device-bin
mkdir -p $OUT
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
BIN=$B OUT=$OUT/dt STEPS="math examples determinism" T_MATH=40 T_EXAMPLES=100 T_DETERMINISM=110 timeout 225 bash tools/morf-run/scripts/gpu-difftest.sh run > $OUT/dt.txt 2>&1
echo "difftest rc=$?"; grep -E "^\| |runs,|distinct|rel err" $OUT/dt.txt | head -30
BIN=$B RUNS=20 LIMIT=60 MODE=final OUT=$OUT/final timeout 355 bash $B/calibrate.sh > /dev/null 2>&1
awk '{printf "%-40s %-16s %s %s ", $1, $2, $5, $6; for(i=7;i<=NF;i++) printf "%s ", $i; print ""}' $OUT/final/summary.txt
