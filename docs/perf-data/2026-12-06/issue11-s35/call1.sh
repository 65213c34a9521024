# Issue 11, thirty-fifth session, call 1: where the time of the shapes under 80% goes. ncu
# (clocks not locked) of the flat partials kernel (gelu_bwd_bias N = 32, 100), the row form at
# N = 384, RMSNorm backward at N = 17 (warp-transposed packed rows) and colmax_rowsum at
# 65536 x 1024 (the read-only family); then the flat partials' final reduction in the grid
# (final=grid, the default at N = 32, 64) against its own launch (final=launch), alternating.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s35/call1.sh
DEADLINE=${DEADLINE:-480} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
prof() { # label file kernel-regex sizes
  local l=$1 f=$2 k=$3 sz=$4
  [ "$(left)" -lt 50 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  "$B/morf-opt" "$f" --pipeline gpu --size-hints "$sz" --tuning-cache none -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt"
  grep -o 'morf.schedule = "[^"]*"' "$OUT/logs/$l.mlir" | head -1 | sed "s/^/$l: /" >> "$S"
  timeout 80 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis -k "regex:$k" --launch-count 1 \
    "$B/morf-run" "$OUT/logs/$l.mlir" --device gpu --random "$sz" --output-dir "/tmp/ncu-$l" > "$OUT/logs/ncu-$l.txt" 2>&1
  echo "ncu $l rc=$?: $(grep -E 'DRAM Throughput|Achieved Occupancy|Registers Per|Duration|Theoretical Occupancy|Issue Slots Busy|No Eligible|L2 Hit Rate|Grid Size|Block Limit Reg|Warp Cycles Per Issued|Executed Ipc A' "$OUT/logs/ncu-$l.txt" | tr -s ' ' | tr '\n' ';')" >> "$S"
}
G=examples/gelu_bwd_bias.mlir
prof gelu32 $G gelu_bwd_bias_k0 M=1048576,N=32
prof gelu100 $G gelu_bwd_bias_k0 M=327680,N=100
prof gelu384 $G gelu_bwd_bias_k0 M=131072,N=384
prof rms17 examples/rmsnorm_bwd.mlir rmsnorm_bwd_k0 M=2097152,N=17
prof colmax1k examples/colmax_rowsum.mlir colmax_rowsum_k0 M=65536,N=1024
F=partials=resident
ab_pipeline fin32 $G M=1048576,N=32 "$F" "final=grid" "final=launch" 2 --runs 100
ab_pipeline fin64 $G M=524288,N=64 "$F" "final=grid" "final=launch" 2 --runs 100
finish
