# Issue 11, forty-fourth session, call 8: the table rows on an H200 with the committed
# cache (unchecked), and Inductor's default in the same call (anchors.py, ONLY_INDUCTOR=1), as
# the fortieth session's call 2 ran them; nothing in these rows' schedules changed since.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s44/call8.sh
DEADLINE=${DEADLINE:-290} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
table_with_inductor
finish
