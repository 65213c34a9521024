# Issue 11, thirty-sixth session, call 3: (A) a CTA per row with the `gpu` pipeline's
# partials=resident: interleaved splits, and two CTAs a SM with the row in registers
# (remat-converts, chunk-major, no ring), alone and together, unchecked (the options' kernels
# are checked elsewhere); (B) rows of 8-byte vectors (N not a multiple of 8, bf16) at fewer
# lanes a row, checked against fp64.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s36/call3.sh
DEADLINE=${DEADLINE:-500} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
sweep() { # label example sizes fuse-opts variants... (extra args in $EXTRA)
  local l=$1 ex=$2 sz=$3 fo=$4 i=0 v; shift 4
  for v in "$@"; do
    i=$((i + 1)); bench_pipeline "$l-$i" "examples/$ex.mlir" "$sz" "$fo" "$v" --runs 100 ${EXTRA:-}
  done
}
TWO="min-ctas=2 remat-converts=true chunk-major=true staged-rows=1"
for n in 100 36 60 300; do
  m=$(( 26214400 / n ))
  for ex in rmsnorm_bwd layernorm_bwd; do
    case $n in 300) t="threads-per-row=16";; *) t="threads-per-row=4";; esac
    sweep $ex-n$n $ex M=$m,N=$n partials=resident "" "threads-per-row=8" "$t" ""
  done
done
EXTRA=--no-check
for s in 24576x2560 16384x3072 32768x4096 16384x5120 16384x8192; do
  sz=M=${s%x*},N=${s#*x}
  sweep rms-$s rmsnorm_bwd $sz partials=resident "" "interleave-splits=true" "$TWO" "interleave-splits=true $TWO" ""
done
for s in 24576x2560 16384x3072 32768x4096; do
  sz=M=${s%x*},N=${s#*x}
  sweep ln-$s layernorm_bwd $sz partials=resident "" "interleave-splits=true" "interleave-splits=true $TWO" ""
done
for s in 16384x5120 16384x8192; do
  sz=M=${s%x*},N=${s#*x}
  sweep ln-$s layernorm_bwd $sz partials=resident "" "interleave-splits=true"
done
finish
