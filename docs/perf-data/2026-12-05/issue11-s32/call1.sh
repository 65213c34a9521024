# Issue 11, thirty-second session, call 1: warp-transposed packed rows (`warp-transpose=true`)
# against the lanes' own pieces.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s32/call1.sh
# from the repository root on the device machine, with .device-bin/ carried (release
# morf-bench, morf-run, morf-opt and h200.json of this build).
DEADLINE=560 . tools/scripts/device-call.sh

# 1. The probe: a thread's own G-byte group against the warp's span through shared memory,
#    two inputs and one output, G = 16..128 (CuPy kernels; the guess under test).
timeout 90 python3 docs/perf-data/2026-12-05/issue11-s32/group_probe.py 16 32 48 56 64 80 112 128 \
  > "$OUT/probe.txt" 2>&1; echo "probe rc=$?" >> "$S"; tail -8 "$OUT/probe.txt" >> "$S"

# 2. The lowering, default (A) against warp-transpose=true (B), checked against fp64: first
#    the rows the lanes keep without it (N = 7, 14, 20), then the default thread rows (groups
#    of 24-48 bytes), 8 rows of N = 2 and 3, the other programs.
F=partials=resident
W=warp-transpose=true
ab_pipeline rms-n7 examples/rmsnorm_bwd.mlir M=4194304,N=7 "$F" "" "$W" 2 --runs 100
ab_pipeline rms-n3 examples/rmsnorm_bwd.mlir M=8388608,N=3 "$F" "" "$W" 1 --runs 100
ab_pipeline rms-n14 examples/rmsnorm_bwd.mlir M=2097152,N=14 "$F" "" "$W" 1 --runs 100
ab_pipeline rms-n20 examples/rmsnorm_bwd.mlir M=1048576,N=20 "$F" "" "$W" 1 --runs 100
ab_pipeline ln-n7 examples/layernorm_bwd.mlir M=4194304,N=7 "$F" "" "$W" 1 --runs 100
ab_pipeline ln-n3 examples/layernorm_bwd.mlir M=8388608,N=3 "$F" "" "$W" 1 --runs 100
ab_pipeline rms-n5 examples/rmsnorm_bwd.mlir M=4194304,N=5 "$F" "" "$W" 1 --runs 100
ab_pipeline rms-n2r8 examples/rmsnorm_bwd.mlir M=8388608,N=2 "$F" "packed-rows=8" "packed-rows=8 $W" 1 --runs 100
ab_pipeline rms-n3r8 examples/rmsnorm_bwd.mlir M=8388608,N=3 "$F" "packed-rows=8" "packed-rows=8 $W" 1 --runs 100
ab_pipeline lnf-n7 examples/layernorm_fwd.mlir M=4194304,N=7 "$F" "" "$W" 1 --runs 100
ab_pipeline rcs-n7 examples/row_col_stats.mlir M=4194304,N=7 "$F" "" "$W" 1 --runs 100

# 3. compute-sanitizer memcheck and racecheck (the authority; the simulator's race detector
#    models the barriers, not the hardware) on the transposed kernels at odd M.
P="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=4194304,N=7},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=4194304,N=7 $W})"
sanitize_text wt-rms-n7 examples/rmsnorm_bwd.mlir M=100003,N=7 "$P"

# 4. More shapes, if time is left.
ab_pipeline rms-n6 examples/rmsnorm_bwd.mlir M=4194304,N=6 "$F" "" "$W" 1 --runs 100
ab_pipeline rms-n12 examples/rmsnorm_bwd.mlir M=2097152,N=12 "$F" "" "$W" 1 --runs 100
ab_pipeline ln-n14 examples/layernorm_bwd.mlir M=2097152,N=14 "$F" "" "$W" 1 --runs 100
finish
