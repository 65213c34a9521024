# Session 30, call 5: streamed (evict-first) loads on short rows that write dx. Call 4's ncu
# put the fused RMSNorm backward kernel at 8388608 x 2 at 48.7 us (2.76 TB/s, 92% of the
# copy's bandwidth) inside a 58.0 us call: the rest is launch and the write-back of the
# protocol's dirty L2 lines, which a read-heavy kernel pays (its reads evict them). Its
# rows are read once (packed rows, no reload), so evict-first loads may keep those lines
# from being evicted. stream-loads=false (the default for a kernel that writes dx) against
# true, alternating. The flush-lanes build.
#   OUT=$OUT DEADLINE=240 bash docs/perf-data/2026-12-05/issue11-s30/call5.sh
DEADLINE=${DEADLINE:-240} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ab_pipeline rms8m2 examples/rmsnorm_bwd.mlir M=8388608,N=2 "partials=resident" "stream-loads=false" "stream-loads=true" 2 --runs 100
ab_pipeline ln8m2 examples/layernorm_bwd.mlir M=8388608,N=2 "partials=resident" "stream-loads=false" "stream-loads=true" 2 --runs 100
ab_pipeline rms131k examples/rmsnorm_bwd.mlir M=131072,N=256 "partials=resident" "stream-loads=false" "stream-loads=true" 1 --runs 100
ab_pipeline rms32k768 examples/rmsnorm_bwd.mlir M=32768,N=768 "partials=resident" "stream-loads=false" "stream-loads=true" 1 --runs 100
ab_pipeline smb8m2 examples/softmax_bwd_colsum.mlir M=8388608,N=2 "partials=resident" "stream-loads=false" "stream-loads=true" 1 --runs 100
finish
