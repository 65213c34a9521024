# Session 27, call 3 (the budget's last 300 s): racecheck of the looped form with the barrier
# after the shared partials' fill (call 2 found 7 and 14 hazards at M = 1031, N = 1000), and
# packed rows as the default at N = 2, checked against fp64.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s27/call3.sh
DEADLINE=170 . tools/scripts/device-call.sh
for e in rmsnorm_bwd layernorm_bwd; do
  sanitize_text san-looped-$e-M_1031_N_1000 examples/$e.mlir M=1031,N=1000 \
    "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"
done
for e in rmsnorm_bwd layernorm_bwd; do
  bench_pipeline default-$e-8388608x2 examples/$e.mlir M=8388608,N=2 partials=resident "" --runs 100
done
finish
