#!/usr/bin/env bash
# Session 12 call 4: the reload form where holding the row fits but costs CTAs (a CTA per row at
# N = 4096 and 8192: 213-234 registers held, 80-128 reloaded), against the heuristic's schedule
# (textual pipelines: no tuning cache); LayerNorm at 4096 x 16384 as one launch (the model's
# launch cost raised to 1 ms, so the single-kernel plan wins the search).
set -u
T0=$SECONDS
mkdir -p $OUT/logs $OUT/json
late() { [ $((SECONDS-T0)) -gt $1 ] && { echo "SKIPPED $2 (deadline)"; return 0; }; return 1; }
B=.device-bin
P() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions$1,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu$2)"; }
bench() { # label deadline file sizes fuse-opts gpu-opts [extra]
    local l=$1 d=$2 f=$3 s=$4 fo=$5 go=$6; shift 6
    late $d "bench $l" && return
    timeout 100 $B/morf-bench examples/$f.mlir --sizes $s --fused-pipeline "$(P "$fo" "$go")" "$@" --runs 100 --warmup 10 \
        --json $OUT/json/bench-$l.json >$OUT/logs/bench-$l.txt 2>$OUT/logs/bench-$l.log
    echo "$l rc=$? t=$((SECONDS-T0)) $(grep -E '^\| [0-9]' $OUT/logs/bench-$l.txt | cut -d'|' -f2,4,7,8,10 | tr -s ' ')"
    grep -E 'error|check result' $OUT/logs/bench-$l.log | head -3
}
for f in rmsnorm_bwd layernorm_bwd; do
    for s in M=16384,N=8192 M=32768,N=4096; do
        bench $f-$s-heur 200 $f $s '' '' --no-check
        bench $f-$s-reload 220 $f $s '' '{reload=true}' --no-check
    done
    bench $f-8192-reload-min1 230 $f M=16384,N=8192 '' '{reload=true min-ctas=1}' --no-check
done
bench layernorm_bwd-16384-one 250 layernorm_bwd M=4096,N=16384 '{device=launch=1e-3}' '' --no-check
for f in rmsnorm_bwd layernorm_bwd; do
    bench $f-8192-reload-check 300 $f M=16384,N=8192 '' '{reload=true}'
done
tar czf $OUT/raw.tgz -C $OUT logs json && rm -rf $OUT/logs $OUT/json
