# Session 27, call 2: the tuner's rejection of spilling candidates; memcheck and racecheck of the twenty-fifth and twenty-sixth sessions'
# kernels at odd sizes; the rest of the twenty-fifth session's looped-form A/B; the unfused
# baseline's row kernels with a register bound (ptxas spills 12-16 bytes in them when no
# `.minnctapersm` is given, none with `min-ctas` 4 or 5).
# Run from the repository root on the H200 with this build's binaries in .device-bin/ (carried):
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s27/call2.sh
DEADLINE=550 . tools/scripts/device-call.sh
P=partials=resident
V=looped-vectors=false
# The tuner's spill rejection (docs/tuning.md): LayerNorm at 32768 x 4096 from its cached entry
# (staged-rows=2, 127 registers), over min-ctas: 3 and 4 squeeze it under 80 and 64 registers
# (ptxas 13.5 spills 16+ bytes at 80); the log and JSON say which candidates spilled.
tune layernorm_bwd M=32768,N=4096 120 --warm-start --knobs min-ctas --no-recipes --max-trials 6 --no-check
grep -h "Spilled\|spills\|untuned program" "$OUT"/logs/tune-layernorm_bwd-M_32768_N_4096.* | head -8 >> "$S"
# Sanitizers: the relief kernels, the streamed ring, packed rows at odd sizes, looped vectors
# with a scalar tail (N = 1000, 1003; no size hints).
for spec in "rmsnorm_bwd_f32 M=7,N=16384 M=4096,N=16384" "layernorm_bwd_f32 M=1031,N=16384 M=4096,N=16384" \
            "rmsnorm_bwd_f32 M=1031,N=768 M=32768,N=768" "rmsnorm_bwd M=100003,N=2 M=8388608,N=2" \
            "colmax_rowsum M=1031,N=8192 M=16384,N=8192"; do
  set -- $spec
  sanitize s26-$1-${2//[=,]/_} "$1" "$2" "$3"
done
for sz in M=100003,N=2 M=7,N=2; do
  sanitize_text san-packed-rmsnorm_bwd-${sz//[=,]/_} examples/rmsnorm_bwd.mlir "$sz" \
    "$(pipeline "$P size-hints=M=8388608,N=2" "packed-rows=8 size-hints=M=8388608,N=2")"
done
for sz in M=1031,N=1000 M=7,N=1003; do
  for e in rmsnorm_bwd layernorm_bwd; do
    sanitize_text san-looped-$e-${sz//[=,]/_} examples/$e.mlir "$sz" \
      "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"
  done
done
# The unfused baseline's row kernels: no bound (ptxas: 48 registers, 12 bytes spilled at
# N = 768) against min-ctas 4 and 5 (56 / 48 registers, no spill).
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu"
for s in M=32768,N=768 M=262144,N=768 M=65536,N=896 M=1000000,N=256; do
  for mc in none 4 5; do
    bench_text unfused-min$mc-rmsnorm_bwd-${s//[=,]/_} examples/rmsnorm_bwd.mlir "$s" "$U{min-ctas=$mc size-hints=$s})" --runs 100
  done
done
for s in M=32768,N=768 M=65536,N=896; do
  for mc in none 4 5; do
    bench_text unfused-min$mc-layernorm_bwd_f32-${s//[=,]/_} examples/layernorm_bwd_f32.mlir "$s" "$U{min-ctas=$mc size-hints=$s})" --runs 100
  done
done
# The looped form's rest (../../2026-12-04/issue11-s25/call1.sh).
for e in softmax_fwd_colsum rmsnorm_fwd; do
  ab_pipeline fast0-$e-65536x1024 examples/$e.mlir M=65536,N=1024 "" "fast=0" "fast=0 $V" 1 --runs 100
done
ab_pipeline tpr4-row_col_stats-1000000x256 examples/row_col_stats.mlir M=1000000,N=256 "" "threads-per-row=4" "threads-per-row=4 $V" 1 --runs 100
for e in layernorm_fwd softmax_fwd_colsum; do
  for lo in "" "$V"; do
    bench_text mapped-$e-65536x1024-${lo:-vectors} examples/$e.mlir M=65536,N=1024 \
      "builtin.module(lower-tensor-to-loop,canonicalize,cse,loop-map,lower-loop-to-gpu{$lo})" --runs 100
  done
done
for mc in 4 none; do
  bench_pipeline occ-$mc-rmsnorm_bwd-65536x1024 examples/rmsnorm_bwd.mlir M=65536,N=1024 "" "fast=0 min-ctas=$mc" --runs 100
done
finish
