# Issue 11, fortieth session, call 7 (the build of calls 1-6): the bias gradients' fused row
# kernel at N >= 12288, where call 1 found the fused program twice as slow as the unfused one
# at 4096 x 16384 (a CTA of 1024 threads, the row in a scalar loop). The heuristic's schedule
# (with the unfused program beside it) against threads=512, threads=256 and reload=true, each
# checked, 100 calls, no cache.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s40/call7.sh
DEADLINE=${DEADLINE:-560} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for sz in M=4096,N=16384 M=16384,N=16384 M=2048,N=32768 M=8192,N=12288; do
  for ex in gelu_bwd_bias tanh_bwd_bias; do
    l=$ex-${sz//[=,]/_}
    bench_pipeline "$l-heur" "examples/$ex.mlir" "$sz" partials=resident "" --runs 100 --unfused
    bench_pipeline "$l-t512" "examples/$ex.mlir" "$sz" partials=resident "threads=512" --runs 100
    bench_pipeline "$l-t256" "examples/$ex.mlir" "$sz" partials=resident "threads=256" --runs 100
    bench_pipeline "$l-reload" "examples/$ex.mlir" "$sz" partials=resident "reload=true" --runs 100
  done
done
finish
