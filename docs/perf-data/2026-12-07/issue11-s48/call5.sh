# Issue 11, forty-eighth session, call 5 (the session's last device time, one round): which
# of the LayerNorm 65536 x 1024 entry's options (`partials=132`, `interleave-splits`,
# `staged-rows=4`, `contract-fma`) take it from the cost model's schedule to its time, added
# one at a time; then call 4's first three LayerNorm 32768 x 4096 forms (the entry, RMSNorm's
# entry form with two CTAs a SM, shared accumulators at three CTAs of 256). Checked against fp64
# where the form is new.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s48/call5.sh
DEADLINE=${DEADLINE:-150} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
sz=M=65536,N=1024 ln=examples/layernorm_bwd.mlir
bench_pipeline ln1k-default $ln $sz "" "" --runs 100 --no-check
bench_pipeline ln1k-p $ln $sz partials=132 "" --runs 100 --no-check
bench_pipeline ln1k-pi $ln $sz partials=132 "interleave-splits=true" --runs 100 --no-check
bench_pipeline ln1k-pis $ln $sz partials=132 "interleave-splits=true staged-rows=4" --runs 100 --no-check
bench_pipeline ln1k-entry $ln $sz partials=132 "interleave-splits=true staged-rows=4 contract-fma=true" --runs 100 --no-check
sz=M=32768,N=4096
bench_pipeline ln4k-entry $ln $sz partials=0 "min-ctas=none staged-rows=2" --runs 100 --no-check
bench_pipeline ln4k-rms-s2 $ln $sz "partials=resident splits=32" "chunk-major=true contract-fma=true interleave-splits=true remat-converts=true rows-in-flight=1 min-ctas=2 staged-rows=2 threads=256" --runs 100
bench_pipeline ln4k-accs $ln $sz partials=0 "shared-accs=true staged-rows=2 threads=256 contract-fma=true" --runs 100
grep -h "registers" "$OUT"/logs/*.txt | sed 's/^/regs: /' >> "$S"
finish
