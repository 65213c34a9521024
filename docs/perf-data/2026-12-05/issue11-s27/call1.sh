# Session 27, call 1: the twenty-fifth and twenty-sixth sessions' untimed work, the parts on by
# default first. Each A/B alternates and checks every output against fp64.
#   1. the register relief and the streamed staging ring against the build before them
#      (173fd36, in .device-bin/old/; the twenty-sixth session's call1.sh, as written there);
#   2. packed rows against the default at N = 2 (decides whether they become the default);
#   3. the engine's JIT spill warning (min-ctas=8 must warn, the default must not);
#   4. vectors in the looped form against the scalar looped form (fast=0 at 65536 x 1024,
#      the untuned bias gradients at N = 16384).
# Build as ../issue11-s26/call1.sh's header says; run from the repository root on the H200
# (carry: [".device-bin"]):
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s27/call1.sh
DEADLINE=550 . tools/scripts/device-call.sh
P=partials=resident
V=looped-vectors=false
# 1. (../issue11-s26/call1.sh, items 1-4 and the control, one round where it had two at N = 2)
ab_binaries coh-rmsnorm_bwd_f32-4096x16384 examples/rmsnorm_bwd_f32.mlir M=4096,N=16384 "$P" "" 2 --runs 100
ab_binaries coh-layernorm_bwd_f32-4096x16384 examples/layernorm_bwd_f32.mlir M=4096,N=16384 "$P" "" 2 --runs 100
ab_binaries coh-layernorm_bwd-8192x32768 examples/layernorm_bwd.mlir M=8192,N=32768 "$P" "" 1 --runs 50
ab_binaries early-rmsnorm_bwd_f32-32768x768 examples/rmsnorm_bwd_f32.mlir M=32768,N=768 "$P" "" 2 --runs 100
ab_binaries early-layernorm_bwd_f32-32768x4096 examples/layernorm_bwd_f32.mlir M=32768,N=4096 "$P" "" 1 --runs 100
for e in rmsnorm_bwd softmax_bwd_colsum; do
  ab_binaries final-$e-8388608x2 examples/$e.mlir M=8388608,N=2 "$P" "" 1 --runs 100
done
for e in colmax_rowsum row_col_stats; do
  ab_binaries ring-$e-16384x8192 examples/$e.mlir M=16384,N=8192 "$P" "" 2 --runs 100
  ab_binaries ring-$e-4096x16384 examples/$e.mlir M=4096,N=16384 "$P" "" 1 --runs 100
done
ab_binaries ring-reduce3d-16x1024x8192 examples/reduce3d.mlir B=16,M=1024,N=8192 "$P" "" 2 --runs 100
ab_binaries control-rmsnorm_bwd-65536x1024 examples/rmsnorm_bwd.mlir M=65536,N=1024 "$P" "" 1 --runs 100
# 2. Packed rows (../issue11-s26/call2.sh, first lines).
for e in rmsnorm_bwd layernorm_bwd softmax_bwd_colsum row_col_stats; do
  ab_pipeline packed-$e-8388608x2 examples/$e.mlir M=8388608,N=2 "$P" "" "packed-rows=8" 1 --runs 100
done
ab_pipeline packed-rmsnorm_bwd-8388608x4 examples/rmsnorm_bwd.mlir M=8388608,N=4 "$P" "" "packed-rows=8" 1 --runs 100
# 3. The JIT spill warning.
for mc in 8 0; do
  l=jitspill-min$mc
  "$B/morf-opt" examples/rmsnorm_bwd.mlir --pass-pipeline "$(pipeline "$P size-hints=M=65536,N=1024" "min-ctas=$mc size-hints=M=65536,N=1024")" \
    -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt" || { echo "$l: morf-opt failed" >> "$S"; continue; }
  timeout 60 "$B/morf-run" "$OUT/logs/$l.mlir" --device gpu --random M=4096,N=1024 --output-dir "/tmp/o-$l" \
    > "$OUT/logs/$l.txt" 2>&1
  echo "$l rc=$?: $(grep -c "spills in the driver's JIT" "$OUT/logs/$l.txt") spill warning(s): $(grep -m1 "spills in the driver's JIT" "$OUT/logs/$l.txt")" >> "$S"
done
# 4. Vectors in the looped form (../../2026-12-04/issue11-s25/call1.sh, first lines).
for e in rmsnorm_bwd layernorm_bwd row_col_stats; do
  ab_pipeline fast0-$e-65536x1024 examples/$e.mlir M=65536,N=1024 "" "fast=0" "fast=0 $V" 1 --runs 100
done
ab_pipeline cta-gelu_bwd_bias-4096x16384 examples/gelu_bwd_bias.mlir M=4096,N=16384 "" "" "$V" 1 --runs 100
ab_pipeline tpr8-rmsnorm_bwd-576000x384 examples/rmsnorm_bwd.mlir M=576000,N=384 "" "threads-per-row=8" "threads-per-row=8 $V" 1 --runs 100
finish
