# Issue 11, thirty-eighth session, call 8: compute-sanitizer memcheck and racecheck on the
# kernels this session's changes move (d13a496): the gpu-unfused row reductions that now take
# 8 lanes a row (LayerNorm backward, N = 200 and 256) or a second row in flight (row_col_stats,
# N = 2), and the fused N = 3 kernels with their longer split (row_col_stats, reduce3d), each
# at odd row counts; then morf-run --check of the same modules at the hinted sizes.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s38/call8.sh
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu"
G="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident"
sanitize_text unf-ln200 examples/layernorm_bwd.mlir M=1031,N=200 "$U{size-hints=M=65536,N=200})"
sanitize_text unf-ln256 examples/layernorm_bwd.mlir M=7,N=256 "$U{size-hints=M=131072,N=256})"
sanitize_text unf-rcs2 examples/row_col_stats.mlir M=1000003,N=2 "$U{size-hints=M=8388608,N=2})"
sanitize_text rcs3 examples/row_col_stats.mlir M=1000003,N=3 "$G size-hints=M=8388608,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=8388608,N=3})"
sanitize_text r3d3 examples/reduce3d.mlir B=33,M=1031,N=3 "$G size-hints=B=4096,M=2048,N=3},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=B=4096,M=2048,N=3})"
for l in unf-ln200:M=65536,N=200 unf-rcs2:M=8388608,N=2 rcs3:M=8388608,N=3; do
  timeout 60 "$B/morf-run" "$OUT/logs/${l%%:*}.mlir" --device gpu --check --random "${l#*:}" --output-dir "/tmp/c-${l%%:*}" > "$OUT/logs/check-${l%%:*}.txt" 2>&1
  echo "check ${l%%:*} ${l#*:} rc=$?: $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' "$OUT/logs/check-${l%%:*}.txt" | tr '\n' ' ')" >> "$S"
done
finish
