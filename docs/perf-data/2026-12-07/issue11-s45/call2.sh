# Issue 11, forty-fifth session, call 2: where the time of a cooperative row kernel goes, by
# phase. (a) The cost model's kernel (no tuning cache) of five shapes, as morf-opt emits it,
# against two hand-cut variants (`ptx_variants.py`): returning before the grid barrier (rows
# and partials only) and right after it (no final), through `morf-bench --ptx`, unchecked, two
# rounds alternating. (b) Whether a grid larger than one wave (the hardware's block scheduler
# balancing the rows) runs the row phase faster: `fuse-mixed-reductions{partials=K}` with the
# final in its own launch (`final=launch`), K = resident, 1056, 2048, 4096, `--per-kernel`.
# (c) Whether splits taken from a work counter balance the cooperative kernel's CTAs: with
# K = 2 and 4 splits a resident CTA (`fuse-mixed-reductions{partials=K}`), the emitted PTX
# (each CTA every grid-th split) against `ptx_dynamic.py`'s cut (each CTA's next split from
# an atomic counter), round 1 checked against fp64, round 2 not.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s45/call2.sh
DEADLINE=${DEADLINE:-540} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
P=$OUT/ptx; mkdir -p "$P"
phases() {  # label example sizes rounds
  local l=$1 f=$2 sz=$3 r=$4 round v p
  "$B/morf-opt" "$f" --pipeline gpu --size-hints "$sz" --emit=ptx -o "$P/$l.ptx" 2>> "$OUT/logs/opt.txt" \
    && python3 docs/perf-data/2026-12-07/issue11-s45/ptx_variants.py "$P/$l.ptx" >> "$OUT/logs/opt.txt" \
    || { echo "$l: no PTX" >> "$S"; return; }
  for round in $(seq 1 "$r"); do
    for v in base rows barrier; do
      p=$P/$l.ptx; [ "$v" != base ] && p=$P/$l.$v.ptx
      [ "$(left)" -lt 40 ] && { echo "$l-$v-$round: skipped (deadline)" >> "$S"; continue; }
      timeout 90 "$B/morf-bench" "$f" --tuning-cache none --sizes "$sz" --warmup 10 --runs 100 --no-check --ptx "$p" \
        --json "$OUT/json/$l-$v-$round.json" > "$OUT/logs/$l-$v-$round.txt" 2>&1
      echo "$l-$v-$round rc=$?: $(summary_of "$OUT/logs/$l-$v-$round.txt")" >> "$S"
    done
  done
}
phases rms200 examples/rmsnorm_bwd.mlir M=65536,N=200 2
phases ln100 examples/layernorm_bwd.mlir M=100003,N=100 2
phases rms768 examples/rmsnorm_bwd.mlir M=32768,N=768 2
phases rms1024 examples/rmsnorm_bwd.mlir M=65536,N=1024 1
phases ln1024 examples/layernorm_bwd.mlir M=65536,N=1024 1
dynamic() {  # label example sizes K
  local l=$1 f=$2 sz=$3 k=$4 round v ck
  "$B/morf-opt" "$f" --pass-pipeline "$(pipeline "partials=$k" "")" --size-hints "$sz" --emit=ptx -o "$P/$l.ptx" \
    2>> "$OUT/logs/opt.txt" && python3 docs/perf-data/2026-12-07/issue11-s45/ptx_dynamic.py "$P/$l.ptx" "$P/$l.dyn.ptx" \
    >> "$OUT/logs/opt.txt" 2>&1 || { echo "$l: no PTX" >> "$S"; return; }
  for round in 1 2; do
    ck=""; [ "$round" = 2 ] && ck=--no-check
    bench_pipeline "$l-static-$round" "$f" "$sz" "partials=$k" "" --runs 100 $ck --ptx "$P/$l.ptx"
    bench_pipeline "$l-dyn-$round" "$f" "$sz" "partials=$k" "" --runs 100 $ck --ptx "$P/$l.dyn.ptx"
  done
}
dynamic dyn-rms200-790 examples/rmsnorm_bwd.mlir M=65536,N=200 790
dynamic dyn-rms200-1580 examples/rmsnorm_bwd.mlir M=65536,N=200 1580
dynamic dyn-ln100-528 examples/layernorm_bwd.mlir M=100003,N=100 528
dynamic dyn-ln100-1056 examples/layernorm_bwd.mlir M=100003,N=100 1056
dynamic dyn-rms1024-264 examples/rmsnorm_bwd.mlir M=65536,N=1024 264
dynamic dyn-rms1024-528 examples/rmsnorm_bwd.mlir M=65536,N=1024 528
for k in resident 1056 2048 4096; do
  bench_pipeline "waves-rms200-$k" examples/rmsnorm_bwd.mlir M=65536,N=200 "partials=$k" "final=launch" --runs 100 --no-check --per-kernel
  bench_pipeline "waves-ln100-$k" examples/layernorm_bwd.mlir M=100003,N=100 "partials=$k" "final=launch" --runs 100 --no-check --per-kernel
done
for l in waves-rms200-resident waves-rms200-1056 waves-rms200-2048 waves-rms200-4096 waves-ln100-resident waves-ln100-1056 waves-ln100-2048 waves-ln100-4096; do
  echo "$l per kernel: $(grep -E '^\| [0-9]+ +\| [a-z_]+_k[0-9]' "$OUT/logs/$l.txt" | tr -s ' ' | tr '\n' ';')" >> "$S"
done
finish
