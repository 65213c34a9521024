# Issue 11, for the next session (not run in the forty-fourth): where a short-row kernel's time
# goes by instruction. Nsight Compute's warp-state sampling of RMSNorm backward's cooperative
# kernel at 65536 x 200 (the heuristic's, and with two rows and their scalars in flight), per
# SASS instruction (`--page source`), to split its stalls between the row loop, the grid
# barrier's wait and the final reduction; the forty-fourth session found that neither twice
# the bytes in flight nor interleaved splits move these shapes (about 60% of DRAM bandwidth).
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s44/call10.sh
DEADLINE=${DEADLINE:-300} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
# (`source_page`, as written here, is now a helper of tools/scripts/device-call.sh.)
source_page src-rms200 examples/rmsnorm_bwd.mlir M=65536,N=200 ""
source_page src-rms200-rif2 examples/rmsnorm_bwd.mlir M=65536,N=200 "rows-in-flight=2 min-ctas=3"
source_page src-ln100 examples/layernorm_bwd.mlir M=100003,N=100 ""
finish
