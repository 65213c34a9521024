# Issue 11, thirty-second session, call 4: the parity fix as a barrier at each split's start
# (replacing call 2-3's parity carried across splits) against the build before it
# (.device-bin/old: 4249043) on the cached table rows, alternating.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s32/call4.sh
DEADLINE=400 . tools/scripts/device-call.sh
OLDB=.device-bin/old
for r in 1 2; do
  B=$OLDB bench_cache "rms32k-old$r" examples/rmsnorm_bwd.mlir M=32768,N=4096 --runs 100
  bench_cache "rms32k-new$r" examples/rmsnorm_bwd.mlir M=32768,N=4096 --runs 100
done
for t in "ln4k layernorm_bwd M=4096,N=16384" "rms64k rmsnorm_bwd M=65536,N=1024" "ln32k layernorm_bwd M=32768,N=4096" \
         "rms576k rmsnorm_bwd M=576000,N=384"; do
  set -- $t
  B=$OLDB bench_cache "$1-old" examples/$2.mlir "$3" --runs 100
  bench_cache "$1-new" examples/$2.mlir "$3" --runs 100
done
finish
