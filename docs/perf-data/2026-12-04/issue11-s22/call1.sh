# Issue 11, twenty-second session, call 1: more CTAs a SM with the row in registers where
# LayerNorm's two partials a column kept it at one or two CTAs a SM.
# - LayerNorm 32768 x 4096: CTAs of 512 (8 columns a thread, 16 partials), two a SM, 64
#   registers and no spill by ptxas (32 warps a SM), against the cache (two CTAs of 256 a SM,
#   a ring of two rows).
# - LayerNorm 16384 x 8192: a CTA of 1024 (8 columns a thread), 64 registers, against the cache
#   (one CTA of 512, a ring of four).
# - 100000 x 32768 (unchecked, 30 calls): a cluster per row with several CTAs a SM and the row
#   in registers (cluster=4 x 256, two a SM; cluster=8 x 256, three; cluster=8 x 512, two),
#   against the default (a cluster of two CTAs of 512, one a SM, the row reloaded).
# - 4096 x 16384: the same kinds of cluster (RMSNorm 2 x 256 two a SM; LayerNorm 4 x 512 two).
set -u
DEADLINE=560 . tools/scripts/device-call.sh
R=examples/rmsnorm_bwd.mlir; L=examples/layernorm_bwd.mlir
F="partials=resident splits=32"
G="staged-rows=1 rows-in-flight=1 interleave-splits=true remat-converts=true chunk-major=true"
for r in 1 2; do
  echo "== round $r" >> "$S"
  K="--runs 100"; [ $r = 2 ] && K="--runs 100 --no-check"
  bench_cache r$r-ln4k-cache $L M=32768,N=4096 $K
  bench_pipeline r$r-ln4k-t512mc2 $L M=32768,N=4096 "$F" "$G threads=512 min-ctas=2" $K
  bench_pipeline r$r-ln4k-t512mc2-fma $L M=32768,N=4096 "$F" "$G threads=512 min-ctas=2 contract-fma=true" $K
  bench_pipeline r$r-ln4k-t512mc2-ring2 $L M=32768,N=4096 "$F" "chunk-major=true interleave-splits=true remat-converts=true threads=512 min-ctas=2 staged-rows=2" $K
  bench_cache r$r-ln8k-cache $L M=16384,N=8192 $K
  bench_pipeline r$r-ln8k-t1024 $L M=16384,N=8192 "$F" "$G threads=1024 min-ctas=1" $K
  bench_pipeline r$r-ln8k-t1024-ring2 $L M=16384,N=8192 "$F" "chunk-major=true interleave-splits=true remat-converts=true threads=1024 min-ctas=1 staged-rows=2" $K
done
echo "== 4096 x 16384" >> "$S"
bench_cache rms16k-cache $R M=4096,N=16384 --runs 100
bench_pipeline rms16k-c2t256mc2 $R M=4096,N=16384 "$F" "$G cluster=2 threads=256 min-ctas=2 reload=false" --runs 100
bench_cache ln16k-cache $L M=4096,N=16384 --runs 100
bench_pipeline ln16k-c4t512mc2 $L M=4096,N=16384 "$F" "$G cluster=4 threads=512 min-ctas=2 reload=false" --runs 100
echo "== 100000 x 32768 (unchecked)" >> "$S"
K="--runs 30 --no-check"
bench_pipeline rms32k-default $R M=100000,N=32768 "partials=resident" "" $K
bench_pipeline rms32k-c4t256mc2 $R M=100000,N=32768 "$F" "$G cluster=4 threads=256 min-ctas=2 reload=false" $K
bench_pipeline rms32k-c8t256mc3 $R M=100000,N=32768 "$F" "$G cluster=8 threads=256 min-ctas=3 reload=false" $K
bench_pipeline rms32k-c8t512mc2 $R M=100000,N=32768 "$F" "$G cluster=8 threads=512 min-ctas=2 reload=false" $K
bench_pipeline ln32k-default $L M=100000,N=32768 "partials=resident" "" $K
bench_pipeline ln32k-c8t256mc3 $L M=100000,N=32768 "$F" "$G cluster=8 threads=256 min-ctas=3 reload=false" $K
bench_pipeline ln32k-c8t512mc2 $L M=100000,N=32768 "$F" "$G cluster=8 threads=512 min-ctas=2 reload=false" $K
finish
