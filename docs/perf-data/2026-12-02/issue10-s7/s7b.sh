#!/usr/bin/env bash
# Session 7, call 2: why gelu/tanh bias gradients got slower with shorter math: grid (waves) A/B, old build, ncu.
set -uo pipefail
B=.device-bin
mkdir -p $OUT
S=M=65536,N=1024
{
for g in "" 264 132 396; do
  o=""; [ -n "$g" ] && o="grid=$g"
  echo "new-gelu-g${g:-def}|examples/gelu_bwd_bias.mlir|$S||$o|"
  echo "new-tanh-g${g:-def}|examples/tanh_bwd_bias.mlir|$S||$o|"
done
} > $OUT/new.list
printf 'old-gelu|examples/gelu_bwd_bias.mlir|%s|||\nold-tanh|examples/tanh_bwd_bias.mlir|%s|||\nold-gelu-g264|examples/gelu_bwd_bias.mlir|%s||grid=264|\n' $S $S $S > $OUT/old.list
BIN=$B RUNS=20 LIMIT=30 MODE=list LIST=$OUT/new.list OUT=$OUT/new timeout 200 bash $B/calibrate.sh > /dev/null 2>&1
BIN=$B/old RUNS=20 LIMIT=30 MODE=list LIST=$OUT/old.list OUT=$OUT/old timeout 90 bash $B/calibrate.sh > /dev/null 2>&1
for v in new old; do
  bin=$B/morf-bench; [ $v = old ] && bin=$B/old/morf-bench
  timeout 60 ncu --kernel-name regex:gelu_bwd_bias_k0 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats $bin examples/gelu_bwd_bias.mlir --sizes $S --runs 1 --warmup 0 --no-check > $OUT/ncu-gelu-$v.txt 2>&1
done
for f in new old; do awk '{printf "%-22s %s %s ", $1, $5, $6; for(i=7;i<=NF;i++) printf "%s ", $i; print ""}' $OUT/$f/summary.txt; done
for v in new old; do echo "== ncu $v"; grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Compute \(SM\) Throughput|Memory Throughput|Waves Per SM|Grid Size|Block Limit Reg" $OUT/ncu-gelu-$v.txt | head -20; done
