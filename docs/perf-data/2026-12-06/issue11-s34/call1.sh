# Issue 11, thirty-fourth session, call 1: the thirty-third session's row form of pointwise
# nests over short rows and 3-D rows (not timed then), and this session's flat vectors of the
# unfused pipeline's pointwise nests over odd rows. The build before both (.device-bin/old:
# b890e37) against this one, gpu pipeline (partials=resident, no cache), alternating;
# compute-sanitizer on the new kernels at odd shapes. RMSNorm backward unfused at N = 17: its
# scalar dx kernel without a division a point.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s34/call1.sh
DEADLINE=290 . tools/scripts/device-call.sh
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader >> "$S"

F=partials=resident
T3=.device-bin/programs/tanh_bwd_bias_3d.mlir
G=examples/gelu_bwd_bias.mlir
ab_binaries gelu-n7 $G M=4194304,N=7 "$F" "" 1 --runs 100 --unfused
ab_binaries gelu-n17 $G M=2097152,N=17 "$F" "" 1 --runs 100 --unfused
ab_binaries rms-n17 examples/rmsnorm_bwd.mlir M=2097152,N=17 "$F" "" 1 --runs 100 --unfused
ab_binaries gelu-n2 $G M=8388608,N=2 "$F" "" 1 --runs 100
ab_binaries tanh3d-1024 $T3 B=64,T=1024,N=1024 "$F" "" 1 --runs 100
ab_binaries gelu-n32 $G M=1048576,N=32 "$F" "" 1 --runs 100
ab_binaries tanh3d-n7 $T3 B=64,T=65536,N=7 "$F" "" 1 --runs 100
ab_binaries gelu-n100 $G M=327680,N=100 "$F" "" 1 --runs 100 --unfused
ab_binaries gelu-n3 $G M=8388608,N=3 "$F" "" 1 --runs 100
ab_binaries gelu-n48 $G M=1048576,N=48 "$F" "" 1 --runs 100

# compute-sanitizer memcheck and racecheck of the new row form and the flat vectors at odd M.
P="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7})"
sanitize_text gelu-n7 $G M=100003,N=7 "$P"
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=100003,N=17})"
sanitize_text gelu-u17 $G M=100003,N=17 "$U"
finish
