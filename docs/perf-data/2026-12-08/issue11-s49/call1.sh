# Issue 11, forty-ninth session, call 1: per-row scalars a row ahead in staged kernels
# (`scalars-ahead`, default auto: on where rows are staged or in flight). Each unmet table
# row's H200 entry (as a pipeline, so that an H100 runs it too) and two met ones whose forms
# stage rows, with the scalars (`rstd[i]`, `mean[i]`) 0, 1, 2 and 4 rows ahead (0: loaded in
# the row, the build before; 1: the new default), two rounds; RMSNorm 65536 x 1024's entry
# (nothing staged, nothing in flight: 0 by default) with 1. On an H200, the table rows with the committed cache and Inductor's
# default in the same call.
#   OUT=$OUT bash docs/perf-data/2026-12-08/issue11-s49/call1.sh
DEADLINE=${DEADLINE:-570} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ln=examples/layernorm_bwd.mlir rms=examples/rmsnorm_bwd.mlir
# label file sizes fuse-opts lower-opts: scalars-ahead=0 (each row's scalars loaded in the
# row: the build before), 1 (the default where rows are staged), 2 and 4 rows ahead; two
# rounds alternating, round 1 of 1 and 4 checked.
ab_ahead() {
  local r d ck
  for r in 1 2; do
    for d in 0 1 2 4; do
      ck=--no-check; [ $r = 1 ] && [ $d != 0 ] && [ $d != 2 ] && ck=""
      bench_pipeline "$1-d$d-$r" "$2" "$3" "$4" "$5 scalars-ahead=$d" --runs 100 $ck
    done
  done
}
ab_ahead ln1k $ln M=65536,N=1024 partials=132 "contract-fma=true interleave-splits=true rows-in-flight=2 staged-rows=4"
ab_ahead ln4k $ln M=32768,N=4096 partials=0 "min-ctas=none staged-rows=2"
ab_ahead ln8k $ln M=16384,N=8192 splits=128 "threads=512"
ab_ahead ln16k $ln M=4096,N=16384 partials=resident "batch-reductions=true chunk-major=true contract-fma=true reload=true shared-accs=false staged-rows=3"
ab_ahead rms4k $rms M=32768,N=4096 "partials=resident splits=32" "chunk-major=true contract-fma=true interleave-splits=true min-ctas=3 remat-converts=true rows-in-flight=1 staged-rows=2 threads=256"
ab_ahead rms16k $rms M=4096,N=16384 partials=resident "interleave-splits=true"
rms1k="chunk-major=true cluster=4 contract-fma=true grid=1056 interleave-splits=true min-ctas=2 reload=false remat-converts=true rows-in-flight=1 staged-rows=1"
for r in 1 2; do
  bench_pipeline "rms1k-d$r" $rms M=65536,N=1024 "partials=resident splits=32" "$rms1k" --runs 100 --no-check
  bench_pipeline "rms1k-t$r" $rms M=65536,N=1024 "partials=resident splits=32" "$rms1k scalars-ahead=1" --runs 100 --no-check
done
grep -h "registers" "$OUT"/logs/*1.txt | sed 's/^/regs: /' >> "$S"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  table_with_inductor
fi
finish
