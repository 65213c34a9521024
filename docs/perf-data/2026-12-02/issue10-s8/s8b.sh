#!/usr/bin/env bash
# Session 8, call 2: the final reduction in the row kernel's grid behind a grid barrier
# (final=grid, now the default) against its own launch (final=launch): the GPU difftest of the
# examples and of determinism with the new default, then A/B timings.
set -uo pipefail
B=.device-bin
mkdir -p $OUT
BIN=$B OUT=$OUT/dt STEPS="math examples determinism" T_MATH=60 T_EXAMPLES=100 T_DETERMINISM=60 timeout 230 bash tools/morf-run/scripts/gpu-difftest.sh run > $OUT/dt.txt 2>&1
echo "difftest rc=$?"; grep -E "runs,|passed|failed|^\| " $OUT/dt.txt | tail -8
S=M=65536,N=1024
{
for f in examples/*.mlir; do
  b=$(basename $f .mlir)
  case $b in layernorm_fwd|rmsnorm_fwd) continue;; esac
  sz=$S; grep -q '"B"' $f && sz=B=64,M=1024,N=1024; grep -q '"K"' $f && sz=M=65536,K=65536,N=1024
  echo "grid-$b|$f|$sz|||"
  echo "launch-$b|$f|$sz||final=launch|"
done
for b in rmsnorm_bwd layernorm_bwd; do for sz in M=576000,N=384 M=16384,N=8192; do
  echo "grid-$b-$sz|examples/$b.mlir|$sz|||"
  echo "launch-$b-$sz|examples/$b.mlir|$sz||final=launch|"
done; done
} > $OUT/ab.list
BIN=$B RUNS=20 LIMIT=25 MODE=list LIST=$OUT/ab.list OUT=$OUT/ab timeout 330 bash $B/calibrate.sh > /dev/null 2>&1
awk '{printf "%-42s %-16s %s %s ", $1, $2, $5, $6; for(i=7;i<=NF;i++) printf "%s ", $i; print ""}' $OUT/ab/summary.txt
