# Session 26, call 2 (prepared, NOT RUN: no device was lent in session 26): packed rows
# (docs/conversion-loop-to-gpu.md, "Packed rows"; `packed-rows`, a tuner knob, off by default)
# against the default in one binary, alternating, checked against fp64; then memcheck and
# racecheck of this session's changed kernels and of packed rows at odd sizes.
# Run from the repository root on the H200 with this build's release binaries in .device-bin/
# (carried; see call1.sh's header):
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s26/call2.sh
DEADLINE=540 . tools/scripts/device-call.sh
P=partials=resident
for e in rmsnorm_bwd layernorm_bwd softmax_bwd_colsum row_col_stats; do
  ab_pipeline packed-$e-8388608x2 examples/$e.mlir M=8388608,N=2 "$P" "" "packed-rows=8" 2 --runs 100
done
ab_pipeline packed-rmsnorm_bwd-8388608x4 examples/rmsnorm_bwd.mlir M=8388608,N=4 "$P" "" "packed-rows=8" 1 --runs 100
ab_pipeline packed-rmsnorm_bwd_f32-8388608x2 examples/rmsnorm_bwd_f32.mlir M=8388608,N=2 "$P" "" "packed-rows=8" 1 --runs 100
# Occupancy with packed rows (76 registers, three CTAs of 256, against 48 and five).
for mc in 4 5; do
  bench_pipeline packed-min$mc-rmsnorm_bwd-8388608x2 examples/rmsnorm_bwd.mlir M=8388608,N=2 "$P" "packed-rows=8 min-ctas=$mc" --runs 100
done
# The engine's JIT spill warning (docs/engine.md): a kernel squeezed to 32 registers
# (min-ctas=8 at 256 threads) must be warned about; the default must not be.
for mc in 8 0; do
  l=jitspill-min$mc
  "$B/morf-opt" examples/rmsnorm_bwd.mlir --pass-pipeline "$(pipeline "$P size-hints=M=65536,N=1024" "min-ctas=$mc size-hints=M=65536,N=1024")" \
    -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt" || { echo "$l: morf-opt failed" >> "$S"; continue; }
  timeout 60 "$B/morf-run" "$OUT/logs/$l.mlir" --device gpu --random M=4096,N=1024 --output-dir "/tmp/o-$l" \
    > "$OUT/logs/$l.txt" 2>&1
  echo "$l rc=$?: $(grep -c "spills in the driver's JIT" "$OUT/logs/$l.txt") spill warning(s): $(grep -m1 "spills in the driver's JIT" "$OUT/logs/$l.txt")" >> "$S"
done
# memcheck and racecheck of the changed kernels at odd sizes.
for spec in "rmsnorm_bwd_f32 M=7,N=16384 M=4096,N=16384" "layernorm_bwd_f32 M=1031,N=16384 M=4096,N=16384" \
            "rmsnorm_bwd_f32 M=1031,N=768 M=32768,N=768" "rmsnorm_bwd M=100003,N=2 M=8388608,N=2" \
            "colmax_rowsum M=1031,N=8192 M=16384,N=8192"; do
  set -- $spec
  sanitize s26-$1-${2//[=,]/_} "$1" "$2" "$3"
done
# Packed rows at odd sizes (a split starting mid-group, M not a multiple of R).
for sz in M=100003,N=2 M=7,N=2; do
  sanitize_text san-packed-rmsnorm_bwd-${sz//[=,]/_} examples/rmsnorm_bwd.mlir "$sz" \
    "$(pipeline "$P size-hints=M=8388608,N=2" "packed-rows=8 size-hints=M=8388608,N=2")"
done
finish
