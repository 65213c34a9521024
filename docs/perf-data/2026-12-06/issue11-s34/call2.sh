# Issue 11, thirty-fourth session, call 2: flat partials (a CTA of N x c threads over
# consecutive 16-byte vectors of its rows, each thread's columns fixed, partials combined in
# shared memory) against the row form of the same build (flat-partials=false), gelu_bwd_bias
# and tanh_bwd_bias at N = 2-384, gpu pipeline (partials=resident, no cache), alternating;
# compute-sanitizer on the flat partials kernel at odd shapes. RMSNorm backward at N = 17:
# two packed rows a thread, warp-transposed (warp-transpose=auto) against a warp per row
# (warp-transpose=false, what the heuristic took before), and its sanitizer run.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s34/call2.sh
DEADLINE=170 . tools/scripts/device-call.sh
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader >> "$S"

F=partials=resident
G=examples/gelu_bwd_bias.mlir
T3=.device-bin/programs/tanh_bwd_bias_3d.mlir
ab_pipeline gelu-n17 $G M=2097152,N=17 "$F" "flat-partials=false" "flat-partials=auto" 1 --runs 100 --unfused
ab_pipeline gelu-n7 $G M=4194304,N=7 "$F" "flat-partials=false" "flat-partials=auto" 1 --runs 100
ab_pipeline gelu-n100 $G M=327680,N=100 "$F" "flat-partials=false" "flat-partials=auto" 1 --runs 100 --unfused
P="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=2097152,N=17},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=2097152,N=17})"
sanitize_text gelu-f17 $G M=100003,N=17 "$P"
ab_pipeline rms-n17 examples/rmsnorm_bwd.mlir M=2097152,N=17 "$F" "warp-transpose=false" "warp-transpose=auto" 1 --runs 100
P="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=2097152,N=17},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=2097152,N=17})"
sanitize_text rms-t17 examples/rmsnorm_bwd.mlir M=100003,N=17 "$P"
ab_pipeline gelu-n32 $G M=1048576,N=32 "$F" "flat-partials=false" "flat-partials=auto" 1 --runs 100
ab_pipeline gelu-n2 $G M=8388608,N=2 "$F" "flat-partials=false" "flat-partials=auto" 1 --runs 100
ab_pipeline gelu-n3 $G M=8388608,N=3 "$F" "flat-partials=false" "flat-partials=auto" 1 --runs 100
ab_pipeline gelu-n48 $G M=1048576,N=48 "$F" "flat-partials=false" "flat-partials=auto" 1 --runs 100
ab_pipeline tanh3d-n7 $T3 B=64,T=65536,N=7 "$F" "flat-partials=false" "flat-partials=auto" 1 --runs 100
ab_pipeline gelu-n384 $G M=131072,N=384 "$F" "flat-partials=false" "flat-partials=true" 1 --runs 100

P="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7})"
sanitize_text gelu-f7 $G M=1000003,N=7 "$P"
finish
