# Issue 11, thirty-eighth session, call 7: call 6's N = 3 A/B again (eef6986 against a6052b8).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s38/call7.sh
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for r in 1 2; do
ab_list --runs 100 <<'LIST'
row_col_stats M=8388608,N=3
colmax_rowsum M=8388608,N=3
reduce3d B=4096,M=2048,N=3
LIST
done
finish
