# Issue 11, twenty-third session, call 3. Calls 1-2: the compute-heavy warp-per-row kernels
# (gelu_bwd_bias, tanh_bwd_bias, softmax_fwd_colsum at 65536 x 1024) run faster with their
# next row staged through shared memory at two CTAs a SM than with the heuristic's second row
# in registers at one CTA a SM (gelu 147.3 -> 114.6 us). Here, against the untuned heuristic
# (`--tuning-cache none`), on every warp-per-row case where the heuristic gives up CTAs for a
# second row in registers (ptxas 13: 135-254 registers): (b) the same kernel with
# `staged-rows=2 rows-in-flight=1` and nothing else, (c) with the widenings redone and
# chunk-major emission, (d) (b) with a run-time split a resident CTA.
set -u
DEADLINE=550 . tools/scripts/device-call.sh
K="--runs 100"
S2="staged-rows=2 rows-in-flight=1"
for c in gelu_bwd_bias:M=65536,N=1024 tanh_bwd_bias:M=65536,N=1024 softmax_fwd_colsum:M=65536,N=1024 \
         gelu_bwd_bias:M=32768,N=768 rmsnorm_bwd:M=32768,N=768 softmax_fwd_colsum:M=32768,N=768 \
         layernorm_bwd:M=32768,N=768; do
  e=${c%%:*}; s=${c#*:}; l=$e-${s//[=,]/_}
  bench_pipeline $l-a examples/$e.mlir $s "" "" $K
  bench_pipeline $l-b examples/$e.mlir $s "" "$S2" $K
  bench_pipeline $l-c examples/$e.mlir $s "" "$S2 remat-converts=true chunk-major=true" $K
  bench_pipeline $l-d examples/$e.mlir $s "partials=resident" "$S2" $K
done
finish
