# Issue 11, forty-ninth session, call 3: whichever GPU comes. On an H200: the unmet table
# rows' entries (as pipelines) with the per-row scalars 0, 1 and 2 rows ahead
# (`scalars-ahead`; 0 is the build before), two rounds, round 1 of 1 checked; then the table
# rows with the committed cache and Inductor's default in the same call. On an H100: call 2
# (does reserving 40 SMs reproduce the H200's % of floor).
#   OUT=$OUT bash docs/perf-data/2026-12-08/issue11-s49/call3.sh
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash docs/perf-data/2026-12-08/issue11-s49/call2.sh
fi
DEADLINE=${DEADLINE:-540} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ln=examples/layernorm_bwd.mlir rms=examples/rmsnorm_bwd.mlir
ahead() {
  local r a ck
  for r in 1 2; do
    for a in 0 1 2; do
      ck=--no-check; [ $r = 1 ] && [ $a = 1 ] && ck=""
      bench_pipeline "$1-d$a-$r" "$2" "$3" "$4" "$5 scalars-ahead=$a" --runs 100 $ck
    done
  done
}
ahead ln1k $ln M=65536,N=1024 partials=132 "contract-fma=true interleave-splits=true rows-in-flight=2 staged-rows=4"
ahead ln4k $ln M=32768,N=4096 partials=0 "min-ctas=none staged-rows=2"
ahead ln8k $ln M=16384,N=8192 splits=128 "threads=512"
ahead rms4k $rms M=32768,N=4096 "partials=resident splits=32" "chunk-major=true contract-fma=true interleave-splits=true min-ctas=3 remat-converts=true rows-in-flight=1 staged-rows=2 threads=256"
table_with_inductor
finish
