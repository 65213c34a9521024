# Issue 11, forty-fourth session, call 9: the short rows with interleaved splits (each CTA's
# rows spread over the whole tensor, the grid sweeping it together, as a grid-stride copy
# does) against the default's consecutive block of rows a CTA, fused, no cache, unchecked.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s44/call9.sh
DEADLINE=${DEADLINE:-100} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for es in rmsnorm_bwd:M=65536,N=200 layernorm_bwd:M=100003,N=100 rmsnorm_bwd:M=131072,N=256 layernorm_bwd:M=65536,N=200; do
  ex=${es%%:*}; sz=${es#*:}
  ab_pipeline "$ex-${sz//[=,]/_}" "examples/$ex.mlir" "$sz" partials=resident "" "interleave-splits=true" 1 --runs 100 --no-check
done
finish
