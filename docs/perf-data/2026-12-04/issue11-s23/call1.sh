# Issue 11, twenty-third session, call 1: the examples under 80% of the floor at 65536 x 1024
# (the committed cache: colmax_rowsum 65.8%, reduce3d 64.7%, row_col_stats 61%, gelu_bwd_bias
# 64%, softmax_fwd_colsum 70.5%; tanh_bwd_bias 81.8%). Their warp-per-row kernels run one or
# two CTAs of 8 warps a SM (92-254 registers), one or two rows in flight a warp: few bytes in
# flight. Each variant below is a warp per row with the widenings redone after the barrier
# (`remat-converts`), emitted chunk by chunk, a run-time split a resident CTA, interleaved, and
# a register bound for 2-4 CTAs a SM that ptxas meets without a spill (checked here with
# ptxas 13 before the call).
set -u
DEADLINE=550 . tools/scripts/device-call.sh
M=M=65536,N=1024; B3=B=64,M=1024,N=1024
F="partials=resident"
R="remat-converts=true chunk-major=true interleave-splits=true"
K="--runs 100"
for e in colmax_rowsum reduce3d; do
  s=$M; [ $e = reduce3d ] && s=$B3
  bench_cache $e-cache examples/$e.mlir $s $K
  bench_pipeline $e-mc3 examples/$e.mlir $s "$F" "$R min-ctas=3" $K
  bench_pipeline $e-mc4 examples/$e.mlir $s "$F" "$R min-ctas=4" $K
  bench_pipeline $e-rif2-sa-mc3 examples/$e.mlir $s "$F" "$R rows-in-flight=2 shared-accs=true min-ctas=3" $K
  bench_pipeline $e-staged2-mc3 examples/$e.mlir $s "$F" "$R staged-rows=2 min-ctas=3" $K
done
e=row_col_stats
bench_cache $e-cache examples/$e.mlir $M $K
bench_pipeline $e-sa-mc3 examples/$e.mlir $M "$F" "$R shared-accs=true min-ctas=3" $K
bench_pipeline $e-sa-mc4 examples/$e.mlir $M "$F" "$R shared-accs=true min-ctas=4" $K
bench_pipeline $e-sa-rif2-mc2 examples/$e.mlir $M "$F" "$R shared-accs=true rows-in-flight=2 min-ctas=2" $K
e=gelu_bwd_bias
bench_cache $e-cache examples/$e.mlir $M $K
bench_pipeline $e-rif1-mc3 examples/$e.mlir $M "$F" "$R rows-in-flight=1 min-ctas=3" $K
bench_pipeline $e-rif2-mc2 examples/$e.mlir $M "$F" "$R rows-in-flight=2 min-ctas=2" $K
bench_pipeline $e-staged2-mc3 examples/$e.mlir $M "$F" "$R staged-rows=2 min-ctas=3" $K
e=tanh_bwd_bias
bench_cache $e-cache examples/$e.mlir $M $K
bench_pipeline $e-rif1-mc2 examples/$e.mlir $M "$F" "$R rows-in-flight=1 min-ctas=2" $K
bench_pipeline $e-staged3-mc2 examples/$e.mlir $M "$F" "$R staged-rows=3 min-ctas=2" $K
e=softmax_fwd_colsum
bench_cache $e-cache examples/$e.mlir $M $K
bench_pipeline $e-rif1-mc2 examples/$e.mlir $M "$F" "$R rows-in-flight=1 min-ctas=2" $K
bench_pipeline $e-staged3-mc2 examples/$e.mlir $M "$F" "$R staged-rows=3 min-ctas=2" $K
echo "== the other examples, cache" >> "$S"
for e in layernorm_fwd rmsnorm_fwd logsoftmax_bwd_colsum softmax_bwd_colsum; do
  bench_cache $e-cache examples/$e.mlir $M $K
done
bench_cache two_norms-cache examples/two_norms_shared_weight.mlir M=65536,K=65536,N=1024 $K
finish
