# Issue 11, thirty-seventh session, call 3: ncu of the row kernels at 5120 x 5120 (final
# reductions in their own launch, size hints given): row_col_stats (36% of the floor), with 264
# partials (45%), colmax_rowsum (53%) and RMSNorm backward (77%).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s37/call3.sh
DEADLINE=${DEADLINE:-300} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ncu_profile rcs5120 examples/row_col_stats.mlir row_col_stats_k0 M=5120,N=5120 "$(pipeline partials=resident final=launch)"
ncu_profile rcs5120-k264 examples/row_col_stats.mlir row_col_stats_k0 M=5120,N=5120 "$(pipeline partials=264 final=launch)"
ncu_profile cmr5120 examples/colmax_rowsum.mlir colmax_rowsum_k0 M=5120,N=5120 "$(pipeline partials=resident final=launch)"
ncu_profile rms5120 examples/rmsnorm_bwd.mlir rmsnorm_bwd_k0 M=5120,N=5120 "$(pipeline partials=resident final=launch)"
for l in rcs5120 rcs5120-k264; do
  grep -E "Stall|stall|Warp Cycles|Eligible|Active Warps|Issued Warp" "$OUT/logs/ncu-$l.txt" | head -20 >> "$S"
done
finish
