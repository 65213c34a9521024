# Session 24, call 2: the torch probe of call 1, fixed (its clean-L2 step failed there).
DEADLINE=200 . tools/scripts/device-call.sh
D=docs/perf-data/2026-12-04/issue11-s24
timeout 180 python3 $D/flush_probe.py > $OUT/logs/flush_probe.txt 2>&1; echo "probe rc=$?" >> "$S"
tail -8 $OUT/logs/flush_probe.txt >> "$S"
finish
