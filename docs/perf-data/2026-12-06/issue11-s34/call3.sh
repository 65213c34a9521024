# Issue 11, thirty-fourth session, call 3 (the machine still warm after call 2): flat partials
# against the row form at rows of 128-768 bytes (gelu_bwd_bias N = 64, 200, 384), to place
# the default's threshold.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s34/call3.sh
DEADLINE=100 . tools/scripts/device-call.sh
F=partials=resident
G=examples/gelu_bwd_bias.mlir
ab_pipeline gelu-n384 $G M=131072,N=384 "$F" "flat-partials=false" "flat-partials=true" 1 --runs 100 --no-check
ab_pipeline gelu-n64 $G M=524288,N=64 "$F" "flat-partials=false" "flat-partials=true" 1 --runs 100 --no-check
ab_pipeline gelu-n200 $G M=163840,N=200 "$F" "flat-partials=false" "flat-partials=true" 1 --runs 100 --no-check
finish
