# Issue 11, forty-ninth session, call 2: does an H100 with 40 of its 132 SMs reserved
# (`morf-bench --reserve-sms 40`: a spinning kernel holds them whole, so the copy kernel and
# the program run on 92 SMs, as many DRAM bytes per SM cycle as an H200's 132) reproduce the
# H200's % of floor on the issue's table rows? Each row's H200 entry (as a pipeline; its
# per-SM counts scaled to 92 SMs, `device=sms=92` to both passes) with and without the
# reservation, against the H200 figures of the fortieth session (docs/perf.md, "Where the
# issue 11 rows stand"). Then LayerNorm 65536 x 1024 with its scalars 0, 1 and 2 rows ahead
# under the reservation, two rounds. Round 1 of the emulated LayerNorm entry checked.
# (Its first run hung with the build of f4df6b2 (its results: `call2-hung/`): `cuMemFree` waits for every stream, the
# spinning one too; the runtime now holds frees and module unloads back until the
# reservation ends. The script stops after the first emulated run if that one fails.)
#   OUT=$OUT bash docs/perf-data/2026-12-08/issue11-s49/call2.sh
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ln=examples/layernorm_bwd.mlir rms=examples/rmsnorm_bwd.mlir
d=device=sms=92
# runtime/tests/reserve.rs, built here (`cargo test --release -p morf-runtime --test reserve
# --no-run`) and copied to .device-bin/reserve-test.
[ -x .device-bin/reserve-test ] && { timeout 60 .device-bin/reserve-test > "$OUT/logs/reserve-test.txt" 2>&1;
  echo "reserve-test rc=$?: $(grep -o 'test result.*' "$OUT/logs/reserve-test.txt")" >> "$S"; }
# label file sizes fuse-opts(92 SMs) lower-opts(92 SMs) fuse-opts(132) lower-opts(132)
pair() {
  bench_pipeline "$1-emu" "$2" "$3" "$4 $d" "$5 $d" --runs 100 --no-check --reserve-sms 40
  bench_pipeline "$1-full" "$2" "$3" "$6" "$7" --runs 100 --no-check
}
l1k="contract-fma=true interleave-splits=true rows-in-flight=2 staged-rows=4"
pair ln1k $ln M=65536,N=1024 partials=92 "$l1k" partials=132 "$l1k"
grep -q "ln1k-emu rc=0" "$S" || { finish; exit 1; }
r1k="chunk-major=true contract-fma=true interleave-splits=true min-ctas=2 reload=false remat-converts=true rows-in-flight=1 staged-rows=1"
pair rms1k $rms M=65536,N=1024 "partials=resident splits=32" "$r1k grid=736" "partials=resident splits=32" "$r1k grid=1056"
pair ln4k $ln M=32768,N=4096 partials=0 "min-ctas=none staged-rows=2" partials=0 "min-ctas=none staged-rows=2"
r4k="chunk-major=true contract-fma=true interleave-splits=true min-ctas=3 remat-converts=true rows-in-flight=1 staged-rows=2 threads=256"
pair rms4k $rms M=32768,N=4096 "partials=resident splits=32" "$r4k" "partials=resident splits=32" "$r4k"
pair ln8k $ln M=16384,N=8192 splits=128 threads=512 splits=128 threads=512
r8k="interleave-splits=true min-ctas=2 remat-converts=true rows-in-flight=1 staged-rows=1 threads=256"
pair rms8k $rms M=16384,N=8192 "partials=resident splits=32" "$r8k" "partials=resident splits=32" "$r8k"
l384="chunk-major=true interleave-splits=true min-ctas=3 remat-converts=true rows-in-flight=1 shared-accs=true staged-rows=1 threads-per-row=16"
pair ln384 $ln M=576000,N=384 "partials=resident splits=32" "$l384" "partials=resident splits=32" "$l384"
r384="interleave-splits=true rows-in-flight=1 threads-per-row=16"
pair rms384 $rms M=576000,N=384 "partials=368 splits=256" "$r384" "partials=528 splits=256" "$r384"
for r in 1 2; do
  for a in 0 1 2; do
    ck=--no-check; [ $r = 1 ] && [ $a = 1 ] && ck=""
    bench_pipeline "ln1k-emu-d$a-$r" $ln M=65536,N=1024 "partials=92 $d" "$l1k $d scalars-ahead=$a" --runs 100 --reserve-sms 40 $ck
  done
done
grep -h "copy:\|device:" "$OUT"/logs/ln1k-emu.txt "$OUT"/logs/ln1k-full.txt | sed 's/^/ref: /' >> "$S"
finish
