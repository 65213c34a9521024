# Session 30, call 4: ncu (clocks not locked) of the row kernels at 8388608 x 2, where the
# fused RMSNorm backward (packed rows, 16-byte accesses) runs at 77% of the floor against 90%
# for a copy of its bytes, beside rownorm (dx alone), add2 (a pointwise kernel of the same
# traffic with 4-byte accesses) and, for contrast, the RMSNorm row kernel and rownorm at
# 65536 x 1024. The flush-lanes build.
#   OUT=$OUT DEADLINE=300 bash docs/perf-data/2026-12-05/issue11-s30/call4.sh
DEADLINE=${DEADLINE:-300} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
prof() { # label file kernel-regex sizes
  local l=$1 f=$2 k=$3 sz=$4
  [ "$(left)" -lt 50 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  "$B/morf-opt" "$f" --pipeline gpu --size-hints "$sz" --tuning-cache none -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt"
  timeout 80 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats -k "regex:$k" --launch-count 1 \
    "$B/morf-run" "$OUT/logs/$l.mlir" --device gpu --random "$sz" --output-dir "/tmp/ncu-$l" > "$OUT/logs/ncu-$l.txt" 2>&1
  echo "ncu $l rc=$?: $(grep -E 'DRAM Throughput|Achieved Occupancy|Registers Per|Duration|Theoretical Occupancy|Issue Slots Busy|No Eligible|L2 Hit Rate|Mem Busy|Max Bandwidth' "$OUT/logs/ncu-$l.txt" | tr -s ' ' | tr '\n' ';')" >> "$S"
}
prof rms2 examples/rmsnorm_bwd.mlir rmsnorm_bwd_k0 M=8388608,N=2
prof rownorm2 "$B/programs/rownorm.mlir" rownorm_k0 M=8388608,N=2
prof add2-2 "$B/programs/add2.mlir" add2_k0 M=8388608,N=2
prof rms1024 examples/rmsnorm_bwd.mlir rmsnorm_bwd_k0 M=65536,N=1024
prof rownorm1024 "$B/programs/rownorm.mlir" rownorm_k0 M=65536,N=1024
finish
