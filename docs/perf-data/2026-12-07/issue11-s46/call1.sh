# Issue 11, forty-sixth session, call 1: (a) the new `lower-loop-to-gpu{dynamic-splits=true}`
# (each CTA's next split from a work counter, `mgpu.work_loop`) with `resident-splits=R`
# (R splits per resident CTA) against the same R with the fixed stride and against the
# default (a split a CTA), at short, mid and 1024-column rows; round 1 of the dynamic runs
# checked against fp64, the rest not; two rounds alternating. (b) Where the time of the
# default cooperative row kernel goes by phase: morf-opt's PTX against two hand-cut variants
# (`ptx_variants.py`: returning before the grid barrier, and right after it) through
# `morf-bench --ptx`, unchecked.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s46/call1.sh
DEADLINE=${DEADLINE:-430} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
dyn() {  # label example sizes rounds
  local l=$1 f=$2 sz=$3 r=$4 round ck
  for round in $(seq 1 "$r"); do
    ck=""; [ "$round" = 2 ] && ck=--no-check
    bench_pipeline "$l-default-$round" "$f" "$sz" "partials=resident" "" --runs 100 --no-check
    for k in 2 4; do
      bench_pipeline "$l-static$k-$round" "$f" "$sz" "partials=resident" "resident-splits=$k" --runs 100 --no-check
      bench_pipeline "$l-dyn$k-$round" "$f" "$sz" "partials=resident" "dynamic-splits=true resident-splits=$k" --runs 100 $ck
    done
  done
}
dyn rms200 examples/rmsnorm_bwd.mlir M=65536,N=200 2
dyn rms1024 examples/rmsnorm_bwd.mlir M=65536,N=1024 2
dyn ln100 examples/layernorm_bwd.mlir M=100003,N=100 2
P=$OUT/ptx; mkdir -p "$P"
phases() {  # label example sizes
  local l=$1 f=$2 sz=$3 v p
  "$B/morf-opt" "$f" --pipeline gpu --size-hints "$sz" --emit=ptx -o "$P/$l.ptx" 2>> "$OUT/logs/opt.txt" \
    && python3 docs/perf-data/2026-12-07/issue11-s45/ptx_variants.py "$P/$l.ptx" >> "$OUT/logs/opt.txt" \
    || { echo "$l: no PTX" >> "$S"; return; }
  for v in base rows barrier; do
    p=$P/$l.ptx; [ "$v" != base ] && p=$P/$l.$v.ptx
    [ "$(left)" -lt 40 ] && { echo "$l-$v: skipped (deadline)" >> "$S"; continue; }
    timeout 90 "$B/morf-bench" "$f" --tuning-cache none --sizes "$sz" --warmup 10 --runs 100 --no-check --ptx "$p" \
      --json "$OUT/json/$l-$v.json" > "$OUT/logs/$l-$v.txt" 2>&1
    echo "$l-$v rc=$?: $(summary_of "$OUT/logs/$l-$v.txt")" >> "$S"
  done
}
phases ph-rms200 examples/rmsnorm_bwd.mlir M=65536,N=200
phases ph-rms1024 examples/rmsnorm_bwd.mlir M=65536,N=1024
dyn ln1024 examples/layernorm_bwd.mlir M=65536,N=1024 1
dyn rms768 examples/rmsnorm_bwd.mlir M=32768,N=768 1
phases ph-ln100 examples/layernorm_bwd.mlir M=100003,N=100
finish
