# Session 28, call 1: L2 hints on the unmet rows' PTX (hand-rewritten from the committed cache's
# schedules through morf-bench --ptx): base; stcs (every st.global as st.global.cs: evict-first
# stores); pf (ld.global.nc vectors and cp.async with .L2::256B: a 256-byte L2 prefetch); both.
# Two rounds, alternating; round 1 checked against fp64, round 2 unchecked. Then call 3 of
# session 27 (racecheck of the looped form's fixed fill; packed rows by default at N = 2).
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s28/call1.sh
DEADLINE=560 . tools/scripts/device-call.sh
D=docs/perf-data/2026-12-05/issue11-s28
for e in rmsnorm_bwd layernorm_bwd; do
  sanitize_text san-looped-$e-M_1031_N_1000 examples/$e.mlir M=1031,N=1000 \
    "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"
done
for e in rmsnorm_bwd layernorm_bwd; do
  bench_pipeline default-$e-8388608x2 examples/$e.mlir M=8388608,N=2 partials=resident "" --runs 100
done
while read -r l f s; do
  for round in 1 2; do
    ck=""; [ $round = 2 ] && ck=--no-check
    for v in base stcs pf both; do
      p=$D/ptx/$l.ptx; [ $v != base ] && p=$D/ptx/$l.$v.ptx
      bench_cache "$l-$v-$round" "$f" "$s" --runs 100 --ptx "$p" $ck
    done
  done
done <<LIST
rms64k examples/rmsnorm_bwd.mlir M=65536,N=1024
ln64k examples/layernorm_bwd.mlir M=65536,N=1024
ln32k4k examples/layernorm_bwd.mlir M=32768,N=4096
ln16k8k examples/layernorm_bwd.mlir M=16384,N=8192
rms4k16k examples/rmsnorm_bwd.mlir M=4096,N=16384
ln4k16k examples/layernorm_bwd.mlir M=4096,N=16384
rms32k768 examples/rmsnorm_bwd.mlir M=32768,N=768
colmax64k examples/colmax_rowsum.mlir M=65536,N=1024
LIST
finish
