# Issue 11, thirty-ninth session, call 3: compute-sanitizer memcheck and racecheck of the one
# new code path, a row kernel's partial with the run-time split beside a standalone partial
# that keeps its fixed split and a merged final over both (row_col_stats compiled for
# 16384 x 16384, the `gpu` pipeline, run at 1031 x 16384), then `morf-run --check` of it.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s39/call3.sh
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
sanitize rcs-mixed row_col_stats M=1031,N=16384 M=16384,N=16384
timeout 60 "$B/morf-run" "$OUT/logs/rcs-mixed.mlir" --device gpu --check --random M=1031,N=16384 > "$OUT/logs/rcs-mixed-check.txt" 2>&1
echo "rcs-mixed check rc=$? $(grep -c ok "$OUT/logs/rcs-mixed-check.txt") ok" >> "$S"
finish
