# Issue 11, thirty-third session, call 1: short rows of pointwise nests in the row form, and
# the row form of 3-D bias gradients. The build before (.device-bin/old: b890e37) against
# this one, gpu pipeline (partials=resident, no cache), alternating; gelu_bwd_bias and
# tanh_bwd_bias at short N (the unfused pipeline beside it at N = 7); tanh_bwd_bias over 3-D
# inputs; compute-sanitizer on the new fused kernel at N = 7.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s33/call1.sh
DEADLINE=280 . tools/scripts/device-call.sh
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader >> "$S"

F=partials=resident
T3=.device-bin/programs/tanh_bwd_bias_3d.mlir
ab_binaries gelu-n7 examples/gelu_bwd_bias.mlir M=4194304,N=7 "$F" "" 1 --runs 100 --unfused
ab_binaries gelu-n2 examples/gelu_bwd_bias.mlir M=8388608,N=2 "$F" "" 1 --runs 100
ab_binaries tanh3d-1024 $T3 B=64,T=1024,N=1024 "$F" "" 1 --runs 100
ab_binaries gelu-n32 examples/gelu_bwd_bias.mlir M=1048576,N=32 "$F" "" 1 --runs 100
ab_binaries gelu-n3 examples/gelu_bwd_bias.mlir M=8388608,N=3 "$F" "" 1 --runs 100
ab_binaries tanh3d-n7 $T3 B=64,T=65536,N=7 "$F" "" 1 --runs 100
ab_binaries gelu-n48 examples/gelu_bwd_bias.mlir M=1048576,N=48 "$F" "" 1 --runs 100
ab_binaries gelu-n14 examples/gelu_bwd_bias.mlir M=2097152,N=14 "$F" "" 1 --runs 100
ab_binaries tanh-n7 examples/tanh_bwd_bias.mlir M=4194304,N=7 "$F" "" 1 --runs 100

# compute-sanitizer memcheck and racecheck of the new row form at an odd M.
P="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7})"
sanitize_text gelu-n7 examples/gelu_bwd_bias.mlir M=100003,N=7 "$P"
finish
