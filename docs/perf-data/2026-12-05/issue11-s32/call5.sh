# Issue 11, thirty-second session, call 5: more rows a group where the warp transposes them
# (the default group against twice as many rows, `packed-rows=R`), gpu pipeline's fusion.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s32/call5.sh
DEADLINE=400 . tools/scripts/device-call.sh
F=partials=resident
ab_pipeline rms-n14 examples/rmsnorm_bwd.mlir M=2097152,N=14 "$F" "" "packed-rows=4" 1 --runs 100
ab_pipeline rms-n20 examples/rmsnorm_bwd.mlir M=1048576,N=20 "$F" "" "packed-rows=4" 1 --runs 100
ab_pipeline rms-n10 examples/rmsnorm_bwd.mlir M=2097152,N=10 "$F" "" "packed-rows=4" 1 --runs 100
ab_pipeline rms-n7 examples/rmsnorm_bwd.mlir M=4194304,N=7 "$F" "" "packed-rows=8" 1 --runs 100
ab_pipeline rms-n5 examples/rmsnorm_bwd.mlir M=4194304,N=5 "$F" "" "packed-rows=8" 1 --runs 100
ab_pipeline ln-n14 examples/layernorm_bwd.mlir M=2097152,N=14 "$F" "" "packed-rows=4" 1 --runs 100
ab_pipeline rcs-n7 examples/row_col_stats.mlir M=4194304,N=7 "$F" "" "packed-rows=8" 1 --runs 100
finish
