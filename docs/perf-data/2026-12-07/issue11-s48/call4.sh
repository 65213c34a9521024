# Issue 11, forty-eighth session, call 4: LayerNorm backward at 32768 x 4096 and 16384 x 8192
# (bf16), the two table rows RMSNorm meets and LayerNorm misses on the H200 (216 against 202.5
# and 204.7 us), with the H200 entries' options (as pipelines) against forms the tuner's single
# knob steps from those entries do not reach: RMSNorm's own entry form (a CTA per row,
# interleaved resident splits, chunk-major, widenings redone; two CTAs a SM, with and without
# a ring), and the column partials in shared memory at 24-32 warps a SM. Two rounds, round 1
# checked against fp64.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s48/call4.sh
DEADLINE=${DEADLINE:-330} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
rms="chunk-major=true contract-fma=true interleave-splits=true remat-converts=true rows-in-flight=1"
for r in 1 2; do
  ck=--no-check; [ $r = 1 ] && ck=""
  sz=M=32768,N=4096
  bench_pipeline "ln4k-entry$r" examples/layernorm_bwd.mlir $sz partials=0 "min-ctas=none staged-rows=2" --runs 100 $ck
  bench_pipeline "ln4k-rms-s2-$r" examples/layernorm_bwd.mlir $sz "partials=resident splits=32" "$rms min-ctas=2 staged-rows=2 threads=256" --runs 100 $ck
  bench_pipeline "ln4k-rms-s1-$r" examples/layernorm_bwd.mlir $sz "partials=resident splits=32" "$rms min-ctas=2 staged-rows=1 threads=256" --runs 100 $ck
  bench_pipeline "ln4k-accs-$r" examples/layernorm_bwd.mlir $sz partials=0 "shared-accs=true staged-rows=2 threads=256 contract-fma=true" --runs 100 $ck
  bench_pipeline "ln4k-accs-res-$r" examples/layernorm_bwd.mlir $sz partials=resident "shared-accs=true staged-rows=2 threads=256 contract-fma=true interleave-splits=true" --runs 100 $ck
  sz=M=16384,N=8192
  bench_pipeline "ln8k-entry$r" examples/layernorm_bwd.mlir $sz splits=128 "threads=512" --runs 100 $ck
  bench_pipeline "ln8k-rms512-$r" examples/layernorm_bwd.mlir $sz partials=resident "chunk-major=true contract-fma=true interleave-splits=true remat-converts=true staged-rows=2 threads=512" --runs 100 $ck
  bench_pipeline "ln8k-accs1024-$r" examples/layernorm_bwd.mlir $sz partials=0 "shared-accs=true staged-rows=2 threads=1024 contract-fma=true" --runs 100 $ck
done
grep -h "registers" "$OUT"/logs/*1.txt | sed 's/^/regs: /' >> "$S"
finish
