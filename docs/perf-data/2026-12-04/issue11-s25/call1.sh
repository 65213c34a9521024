# Session 25, call 1 (prepared, NOT RUN: no device was lent in session 25): vectors in the
# looped form of a row (docs/conversion-loop-to-gpu.md, "Vectors in the looped form"), timed
# against the scalar looped form in one binary (`looped-vectors=false`), alternating, checked.
# Run from the repository root with the release binaries in .device-bin/ (carried):
#   OUT=$OUT bash docs/perf-data/2026-12-04/issue11-s25/call1.sh
DEADLINE=520 . tools/scripts/device-call.sh
V=looped-vectors=false
# The looped form as the kernel's only form (fast=0): vectors (the default) against scalar.
for e in rmsnorm_bwd layernorm_bwd softmax_fwd_colsum row_col_stats rmsnorm_fwd; do
  ab_pipeline fast0-$e-65536x1024 examples/$e.mlir M=65536,N=1024 "" "fast=0" "fast=0 $V" 2 --runs 100
done
ab_pipeline fast0-rmsnorm_bwd-576000x384 examples/rmsnorm_bwd.mlir M=576000,N=384 "" "fast=0" "fast=0 $V" 2 --runs 100
# The forced-width cliff: threads-per-row=8 at N = 384 leaves the register-resident form
# (1639 us against 343 in the eleventh session's tuner); the register-resident default beside it.
ab_pipeline tpr8-rmsnorm_bwd-576000x384 examples/rmsnorm_bwd.mlir M=576000,N=384 "" "threads-per-row=8" "threads-per-row=8 $V" 1 --runs 100
ab_pipeline tpr4-row_col_stats-1000000x256 examples/row_col_stats.mlir M=1000000,N=256 "" "threads-per-row=4" "threads-per-row=4 $V" 1 --runs 100
bench_pipeline fast-rmsnorm_bwd-576000x384 examples/rmsnorm_bwd.mlir M=576000,N=384 "" "" --runs 100
# A CTA of 1024 per row in the looped form: the untuned bias gradients at N = 16384.
ab_pipeline cta-gelu_bwd_bias-4096x16384 examples/gelu_bwd_bias.mlir M=4096,N=16384 "" "" "$V" 2 --runs 100
ab_pipeline cta-tanh_bwd_bias-4096x16384 examples/tanh_bwd_bias.mlir M=4096,N=16384 "" "" "$V" 1 --runs 100
# The mapped lowering (loop-map's strategy: a warp per row, lane reductions) with and without
# vector steps.
for e in layernorm_fwd softmax_fwd_colsum; do
  for lo in "" "$V"; do
    bench_text mapped-$e-65536x1024-${lo:-vectors} examples/$e.mlir M=65536,N=1024 \
      "builtin.module(lower-tensor-to-loop,canonicalize,cse,loop-map,lower-loop-to-gpu{$lo})" --runs 100
  done
done
# Occupancy of the vector steps: the bound (3 CTAs of 256 a SM, 85 registers) against 4 (64)
# and ptxas' own choice.
for mc in 4 none; do
  bench_pipeline occ-$mc-rmsnorm_bwd-65536x1024 examples/rmsnorm_bwd.mlir M=65536,N=1024 "" "fast=0 min-ctas=$mc" --runs 100
  bench_pipeline occ-$mc-row_col_stats-65536x1024 examples/row_col_stats.mlir M=65536,N=1024 "" "fast=0 min-ctas=$mc" --runs 100
done
# memcheck and racecheck of looped kernels compiled without size hints (vector steps with a
# scalar tail: N = 1000 and 1003).
for sz in M=1031,N=1000 M=7,N=1003; do
  for e in rmsnorm_bwd layernorm_bwd; do
    l=san-$e-${sz//[=,]/_}
    "$B/morf-opt" examples/$e.mlir --pipeline gpu -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt" || { echo "$l: morf-opt failed" >> "$S"; continue; }
    for tool in memcheck racecheck; do
      [ "$(left)" -lt 30 ] && { echo "$l $tool: skipped (deadline)" >> "$S"; continue; }
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$B/morf-run" "$OUT/logs/$l.mlir" --device gpu \
        --random "$sz" --output-dir "/tmp/o-$l" > "$OUT/logs/$l-$tool.txt" 2>&1
      echo "$l $tool rc=$?: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$OUT/logs/$l-$tool.txt" | head -1)" >> "$S"
    done
  done
done
finish
