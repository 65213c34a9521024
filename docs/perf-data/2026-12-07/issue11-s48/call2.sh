# Issue 11, forty-eighth session, call 2: the 65536 x 1024 rows (RMSNorm and LayerNorm backward,
# bf16) with more warps a SM. The H200 entries hold one CTA of 8 warps a SM (LayerNorm: 254
# registers, staged-rows=4) or a cluster per row (RMSNorm). A ptxas scan of 96 option sets a
# program (this session, no device) found these without a spill at 16 warps a SM: the warp a
# row's column partials in shared memory (`shared-accs=true`), its loads widened after the
# reduction and the body chunk by chunk (`chunk-major remat-converts`), two CTAs of 256 or four
# of 128; and at 24 warps (three CTAs of 256: 32-60 bytes spilled). Each against the H200 entry's
# options (as a pipeline, so that any device runs them), two rounds, round 1 checked against fp64.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s48/call2.sh
DEADLINE=${DEADLINE:-560} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
base="contract-fma=true interleave-splits=true chunk-major=true remat-converts=true shared-accs=true"
for r in 1 2; do
  ck=--no-check; [ $r = 1 ] && ck=""
  for ex in layernorm_bwd rmsnorm_bwd; do
    if [ $ex = layernorm_bwd ]; then
      bench_pipeline "$ex-entry$r" examples/$ex.mlir M=65536,N=1024 partials=132 "contract-fma=true interleave-splits=true rows-in-flight=2 staged-rows=4" --runs 100 $ck
    else
      bench_pipeline "$ex-entry$r" examples/$ex.mlir M=65536,N=1024 "partials=resident splits=32" "chunk-major=true cluster=4 contract-fma=true grid=1056 interleave-splits=true min-ctas=2 reload=false remat-converts=true rows-in-flight=1 staged-rows=1" --runs 100 $ck
    fi
    bench_pipeline "$ex-s2c2-$r" examples/$ex.mlir M=65536,N=1024 partials=resident "$base staged-rows=2 min-ctas=2" --runs 100 $ck
    bench_pipeline "$ex-s3c2-$r" examples/$ex.mlir M=65536,N=1024 partials=resident "$base staged-rows=3 min-ctas=2" --runs 100 $ck
    bench_pipeline "$ex-s2t128c4-$r" examples/$ex.mlir M=65536,N=1024 partials=resident "$base staged-rows=2 threads=128 min-ctas=4" --runs 100 $ck
    bench_pipeline "$ex-s1c2-$r" examples/$ex.mlir M=65536,N=1024 partials=resident "$base staged-rows=1 min-ctas=2" --runs 100 $ck
    bench_pipeline "$ex-s2c3-$r" examples/$ex.mlir M=65536,N=1024 partials=resident "$base staged-rows=2 min-ctas=3" --runs 100 $ck
  done
done
grep -h "registers" "$OUT"/logs/*1.txt | sed 's/^/regs: /' >> "$S"
finish
