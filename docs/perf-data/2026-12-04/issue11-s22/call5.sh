# Issue 11, twenty-second session, call 5: LayerNorm backward at 100000 x 32768. Call 4's
# tuner kept clusters of 4 CTAs, two a SM (6759 us), whose kernel ptxas spills 40 bytes;
# clusters of 8, three a SM, ran 6779 in the same search and spill nothing, and with
# contract-fma 6516 in call 2. Here the cache copy's entry is set to that cluster of 8 and
# morf-tune refines it from there (warm start, contract-fma and the split, unchecked: the
# schedule was checked at 8192 x 32768 in call 2), then morf-bench of the cache.
set -u
DEADLINE=200 . tools/scripts/device-call.sh
tune layernorm_bwd M=100000,N=32768 90 --warm-start --no-recipes --knobs contract-fma,splits --max-trials 5 --no-check
bench_cache ln100k-cache examples/layernorm_bwd.mlir M=100000,N=32768 --runs 30 --no-check
finish
