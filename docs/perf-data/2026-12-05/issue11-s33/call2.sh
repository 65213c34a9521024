# Issue 11, thirty-third session, call 2 (call 1 never got a machine; little device time was
# left): the build before (.device-bin/old: b890e37) against this one, gpu pipeline
# (partials=resident, no cache), at the two shapes that matter most: gelu_bwd_bias at 4194304
# x 7 and 8388608 x 2 (the short-row shape), then 1048576 x 32 if time is left.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s33/call2.sh
DEADLINE=150 . tools/scripts/device-call.sh
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader >> "$S"
F=partials=resident
ab_binaries gelu-n7 examples/gelu_bwd_bias.mlir M=4194304,N=7 "$F" "" 1 --runs 100
ab_binaries gelu-n2 examples/gelu_bwd_bias.mlir M=8388608,N=2 "$F" "" 1 --runs 100
ab_binaries gelu-n32 examples/gelu_bwd_bias.mlir M=1048576,N=32 "$F" "" 1 --runs 100
finish
