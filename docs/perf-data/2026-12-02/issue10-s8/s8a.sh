#!/usr/bin/env bash
# Session 8, call 1: the examples on the GPU (runtime's static-shared fix), chunk-major emission
# against op-by-op, and the committed heavy-row kernels (.minnctapersm) at 65536 x 1024.
set -uo pipefail
B=.device-bin
mkdir -p $OUT
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
BIN=$B OUT=$OUT/dt STEPS="examples" T_EXAMPLES=110 timeout 150 bash tools/morf-run/scripts/gpu-difftest.sh run > $OUT/dt.txt 2>&1
echo "difftest rc=$?"; tail -8 $OUT/dt.txt
BIN=$B RUNS=20 LIMIT=30 MODE=chunk PROGRAMS="gelu_bwd_bias tanh_bwd_bias softmax_fwd_colsum row_col_stats" OUT=$OUT/chunk timeout 330 bash $B/calibrate.sh > /dev/null 2>&1
S=M=65536,N=1024
{
echo "gelu-chunk-r1|examples/gelu_bwd_bias.mlir|$S||chunk-major=true rows-in-flight=1|"
echo "rcs-chunk-r2|examples/row_col_stats.mlir|$S||chunk-major=true rows-in-flight=2|"
echo "colmax_rowsum|examples/colmax_rowsum.mlir|$S|||"
echo "reduce3d|examples/reduce3d.mlir|B=64,M=1024,N=1024|||"
} > $OUT/l.list
BIN=$B RUNS=20 LIMIT=30 MODE=list LIST=$OUT/l.list OUT=$OUT/l timeout 120 bash $B/calibrate.sh > /dev/null 2>&1
for f in chunk l; do awk '{printf "%-40s %-16s %s %s ", $1, $2, $5, $6; for(i=7;i<=NF;i++) printf "%s ", $i; print ""}' $OUT/$f/summary.txt; done
