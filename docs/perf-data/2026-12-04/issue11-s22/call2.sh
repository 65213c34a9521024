# Issue 11, twenty-second session, call 2: a cluster per row at N = 32768 with several CTAs a
# SM (call 1: RMSNorm 100000 x 32768 6925 -> 5940 us with clusters of 4 x 256, two a SM;
# LayerNorm 7440 -> 6748 with 8 x 256, three a SM). Here: the next row's loads issued before
# this row's cluster exchange (`rows-in-flight=2`), contract-fma, other cluster and CTA sizes;
# the same at 8192 x 32768, checked against fp64.
set -u
DEADLINE=560 . tools/scripts/device-call.sh
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
F="partials=resident splits=32"
G="staged-rows=1 interleave-splits=true remat-converts=true chunk-major=true reload=false"
echo "== 8192 x 32768 (checked)" >> "$S"
K="--runs 100"
bench_pipeline rms8-default $R M=8192,N=32768 "partials=resident" "" $K
bench_pipeline rms8-c4t256mc2 $R M=8192,N=32768 "$F" "$G rows-in-flight=1 cluster=4 threads=256 min-ctas=2" $K
bench_pipeline rms8-c8t256mc2r2 $R M=8192,N=32768 "$F" "$G rows-in-flight=2 cluster=8 threads=256 min-ctas=2" $K
bench_pipeline ln8-default $L M=8192,N=32768 "partials=resident" "" $K
bench_pipeline ln8-c8t256mc3 $L M=8192,N=32768 "$F" "$G rows-in-flight=1 cluster=8 threads=256 min-ctas=3" $K
bench_pipeline ln8-c8t256mc2r2 $L M=8192,N=32768 "$F" "$G rows-in-flight=2 cluster=8 threads=256 min-ctas=2" $K
echo "== 100000 x 32768 (unchecked)" >> "$S"
K="--runs 30 --no-check"
bench_pipeline rms-c4t256mc2 $R M=100000,N=32768 "$F" "$G rows-in-flight=1 cluster=4 threads=256 min-ctas=2" $K
bench_pipeline rms-c4t256mc2-fma $R M=100000,N=32768 "$F" "$G rows-in-flight=1 cluster=4 threads=256 min-ctas=2 contract-fma=true" $K
bench_pipeline rms-c8t256mc2r2 $R M=100000,N=32768 "$F" "$G rows-in-flight=2 cluster=8 threads=256 min-ctas=2" $K
bench_pipeline rms-c4t512mc1r2 $R M=100000,N=32768 "$F" "$G rows-in-flight=2 cluster=4 threads=512 min-ctas=1" $K
bench_pipeline ln-c8t256mc2r2 $L M=100000,N=32768 "$F" "$G rows-in-flight=2 cluster=8 threads=256 min-ctas=2" $K
bench_pipeline ln-c8t512mc1r2 $L M=100000,N=32768 "$F" "$G rows-in-flight=2 cluster=8 threads=512 min-ctas=1" $K
bench_pipeline ln-c8t256mc2 $L M=100000,N=32768 "$F" "$G rows-in-flight=1 cluster=8 threads=256 min-ctas=2" $K
bench_pipeline ln-c8t256mc3-fma $L M=100000,N=32768 "$F" "$G rows-in-flight=1 cluster=8 threads=256 min-ctas=3 contract-fma=true" $K
finish
