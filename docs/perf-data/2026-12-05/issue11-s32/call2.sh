# Issue 11, thirty-second session, call 2: the heuristic's warp-transposed packed rows (where
# a thread's group is at least 4 pieces) against `warp-transpose=false`, at the shapes whose
# default it changes; the parity fix (a CTA per row's slot parity carried across splits)
# against the build before it (.device-bin/old: 4249043) on the table rows, with the cache.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s32/call2.sh
DEADLINE=560 . tools/scripts/device-call.sh

timeout 90 python3 docs/perf-data/2026-12-05/issue11-s32/group_probe.py 16 32 48 56 64 80 112 128 \
  > "$OUT/probe.txt" 2>&1; echo "probe rc=$?" >> "$S"; tail -8 "$OUT/probe.txt" >> "$S"

F=partials=resident
OFF=warp-transpose=false
ab_pipeline rms-n5 examples/rmsnorm_bwd.mlir M=4194304,N=5 "$F" "$OFF" "" 1 --runs 100
ab_pipeline rms-n9 examples/rmsnorm_bwd.mlir M=4194304,N=9 "$F" "$OFF" "" 1 --runs 100
ab_pipeline rms-n10 examples/rmsnorm_bwd.mlir M=2097152,N=10 "$F" "$OFF" "" 1 --runs 100
ab_pipeline rmsf-n5 examples/rmsnorm_bwd_f32.mlir M=4194304,N=5 "$F" "$OFF" "" 1 --runs 100
ab_pipeline rmsf-n7 examples/rmsnorm_bwd_f32.mlir M=2097152,N=7 "$F" "$OFF" "" 1 --runs 100
ab_pipeline ln-n5 examples/layernorm_bwd.mlir M=4194304,N=5 "$F" "$OFF" "" 1 --runs 100
ab_pipeline ln-n10 examples/layernorm_bwd.mlir M=2097152,N=10 "$F" "$OFF" "" 1 --runs 100
ab_pipeline lnf-n5 examples/layernorm_fwd.mlir M=4194304,N=5 "$F" "$OFF" "" 1 --runs 100
ab_pipeline rcs-n5 examples/row_col_stats.mlir M=4194304,N=5 "$F" "$OFF" "" 1 --runs 100
ab_pipeline smb-n7 examples/softmax_bwd_colsum.mlir M=4194304,N=7 "$F" "$OFF" "" 1 --runs 100
ab_pipeline gelu-n7 examples/gelu_bwd_bias.mlir M=4194304,N=7 "$F" "$OFF" "" 1 --runs 100

# The parity fix on the cached table rows (old build, then this one).
OLDB=.device-bin/old
for sz in M=32768,N=4096 M=16384,N=8192 M=65536,N=1024; do
  for ex in rmsnorm_bwd layernorm_bwd; do
    l=$ex-${sz//[=,]/_}
    B=$OLDB bench_cache "$l-old" examples/$ex.mlir "$sz" --runs 100
    bench_cache "$l-new" examples/$ex.mlir "$sz" --runs 100
  done
done

P="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=2097152,N=10},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=2097152,N=10})"
sanitize_text wt-ln-n10 examples/layernorm_bwd.mlir M=100003,N=10 "$P"
finish
