# Issue 11, forty-ninth session, call 4 (the session's last device time): call 2 cut to its
# first three rows (LayerNorm 65536 x 1024 and 32768 x 4096, RMSNorm 32768 x 4096, each entry
# with 40 of 132 SMs reserved and without), after runtime/tests/reserve.rs.
#   OUT=$OUT bash docs/perf-data/2026-12-08/issue11-s49/call4.sh
DEADLINE=${DEADLINE:-120} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ln=examples/layernorm_bwd.mlir rms=examples/rmsnorm_bwd.mlir
d=device=sms=92
[ -x .device-bin/reserve-test ] && { timeout 40 .device-bin/reserve-test > "$OUT/logs/reserve-test.txt" 2>&1;
  echo "reserve-test rc=$?: $(grep -o 'test result.*' "$OUT/logs/reserve-test.txt")" >> "$S"; }
l1k="contract-fma=true interleave-splits=true rows-in-flight=2 staged-rows=4"
bench_pipeline ln1k-emu $ln M=65536,N=1024 "partials=92 $d" "$l1k $d" --runs 100 --no-check --reserve-sms 40
grep -q "ln1k-emu rc=0" "$S" || { finish; exit 1; }
bench_pipeline ln1k-full $ln M=65536,N=1024 partials=132 "$l1k" --runs 100 --no-check
bench_pipeline ln4k-emu $ln M=32768,N=4096 "partials=0 $d" "min-ctas=none staged-rows=2 $d" --runs 100 --no-check --reserve-sms 40
bench_pipeline ln4k-full $ln M=32768,N=4096 partials=0 "min-ctas=none staged-rows=2" --runs 100 --no-check
r4k="chunk-major=true contract-fma=true interleave-splits=true min-ctas=3 remat-converts=true rows-in-flight=1 staged-rows=2 threads=256"
bench_pipeline rms4k-emu $rms M=32768,N=4096 "partials=resident splits=32 $d" "$r4k $d" --runs 100 --no-check --reserve-sms 40
bench_pipeline rms4k-full $rms M=32768,N=4096 "partials=resident splits=32" "$r4k" --runs 100 --no-check
grep -h "copy:\|device:" "$OUT"/logs/*.txt | sed 's/^/ref: /' >> "$S"
finish
