# Issue 11, thirty-sixth session, call 4: rows of 8-byte vectors take fewer lanes
# (NARROW_ROW_LANE_BYTES): the build before (.device-bin/old) against this one, the `gpu`
# pipeline's options, checked against fp64; compute-sanitizer on the new kernels at odd M.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s36/call4.sh
DEADLINE=${DEADLINE:-480} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for n in 44 76 132 196; do
  for ex in rmsnorm_bwd layernorm_bwd; do
    ab_binaries $ex-n$n examples/$ex.mlir M=$(( 26214400 / n )),N=$n partials=resident "" 1 --runs 100
  done
done
for n in 100 36; do
  for ex in rmsnorm_fwd layernorm_fwd softmax_fwd_colsum row_col_stats; do
    ab_binaries $ex-n$n examples/$ex.mlir M=$(( 26214400 / n )),N=$n partials=resident "" 1 --runs 100
  done
done
for n in 100 36; do
  for ex in layernorm_bwd rmsnorm_bwd; do
    sanitize_text san-$ex-n$n examples/$ex.mlir M=1031,N=$n "$(pipeline partials=resident "size-hints=M=262144,N=$n")"
  done
done
finish
