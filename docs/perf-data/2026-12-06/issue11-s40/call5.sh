# Issue 11, fortieth session, call 5 (same build and H200): call 4's cache
# (.device-bin/h200-s40c4.json; new entries for LayerNorm 16384 x 8192 and RMSNorm 65536 x 1024):
# the table rows with it (checked), compute-sanitizer on the two new entries at odd row counts,
# dw/db over 20 fresh processes each, and ncu of LayerNorm 65536 x 1024's cached kernel.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s40/call5.sh
DEADLINE=${DEADLINE:-580} . tools/scripts/device-call.sh
cp "$B/h200-s40c4.json" "$C"
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for ex in rmsnorm_bwd layernorm_bwd; do
  timeout 120 "$B/morf-bench" "examples/$ex.mlir" --tuning-cache "$C" --runs 100 --warmup 10 \
    --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 \
    --json "$OUT/json/table-$ex.json" > "$OUT/logs/table-$ex.txt" 2> "$OUT/logs/table-$ex.log"
  echo "== $ex rc=$? $(grep -o 'copy: .*' "$OUT/logs/table-$ex.log" | head -1)" >> "$S"
  grep -E '^\| [0-9]' "$OUT/logs/table-$ex.txt" >> "$S"
  grep -o 'check .*' "$OUT/logs/table-$ex.log" | tr '\n' ' ' >> "$S"; echo >> "$S"
done
sanitize ln8k layernorm_bwd M=1031,N=8192 M=16384,N=8192
sanitize rms1k rmsnorm_bwd M=1031,N=1024 M=65536,N=1024
sanitize rms1k-m7 rmsnorm_bwd M=7,N=1024 M=65536,N=1024
determinism ln8k layernorm_bwd M=16384,N=8192 20
determinism rms1k rmsnorm_bwd M=65536,N=1024 20
"$B/morf-opt" examples/layernorm_bwd.mlir --pipeline gpu --size-hints M=65536,N=1024 --tuning-cache "$C" -o "$OUT/logs/ln1k.mlir"
timeout 80 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats -k regex:layernorm_bwd_k0 --launch-count 1 \
  "$B/morf-run" "$OUT/logs/ln1k.mlir" --device gpu --random M=65536,N=1024 --output-dir /tmp/ncu-ln1k > "$OUT/logs/ncu-ln1k.txt" 2>&1
echo "ncu ln1k rc=$?: $(grep -E 'DRAM Throughput|Achieved Occupancy|Registers Per|Duration|Theoretical Occupancy|Issue Slots Busy|No Eligible|Grid Size|Warp Cycles Per Issued' "$OUT/logs/ncu-ln1k.txt" | tr -s ' ' | tr '\n' ';')" >> "$S"
finish
