# Session 30, call 7 (run inline on the H200 that call 6 left warm, as one command line):
# the flush lanes (old 9d1b288 binaries against the flush-lanes + model build) and streamed
# loads on packed rows, on the H200.
#   DEADLINE=200 . tools/scripts/device-call.sh; ...; finish
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ab_binaries rms8m2 examples/rmsnorm_bwd.mlir M=8388608,N=2 "partials=resident" "" 2 --runs 100
ab_binaries ln8m2 examples/layernorm_bwd.mlir M=8388608,N=2 "partials=resident" "" 2 --runs 100
ab_pipeline cs-rms8m2 examples/rmsnorm_bwd.mlir M=8388608,N=2 "partials=resident" "stream-loads=false" "stream-loads=true" 1 --runs 100
ab_pipeline cs-ln8m2 examples/layernorm_bwd.mlir M=8388608,N=2 "partials=resident" "stream-loads=false" "stream-loads=true" 1 --runs 100
ab_binaries rms4m4 examples/rmsnorm_bwd.mlir M=4194304,N=4 "partials=resident" "" 1 --runs 100
ab_binaries cmr8m2 examples/colmax_rowsum.mlir M=8388608,N=2 "partials=resident" "" 1 --runs 100
finish
