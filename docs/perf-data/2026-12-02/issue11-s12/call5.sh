#!/usr/bin/env bash
# Session 12 call 5: shared accumulators (the partials of a reload-form CTA per row in shared
# memory) where the registers cannot hold them, against the looped form (reload=false) and
# the earlier plans; f32 rows whose reload estimate ptxas exceeds (small spills).
set -u
T0=$SECONDS
mkdir -p $OUT/logs $OUT/json
late() { [ $((SECONDS-T0)) -gt $1 ] && { echo "SKIPPED $2 (deadline)"; return 0; }; return 1; }
B=.device-bin
P() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu$1)"; }
bench() { # label deadline file sizes gpu-opts [extra]
    local l=$1 d=$2 f=$3 s=$4 go=$5; shift 5
    late $d "bench $l" && return
    timeout 60 $B/morf-bench examples/$f.mlir --sizes $s --fused-pipeline "$(P "$go")" "$@" --runs 50 --warmup 5 \
        --json $OUT/json/bench-$l.json >$OUT/logs/bench-$l.txt 2>$OUT/logs/bench-$l.log
    echo "$l rc=$? t=$((SECONDS-T0)) $(grep -E '^\| [0-9]' $OUT/logs/bench-$l.txt | cut -d'|' -f2,4,7,8,10 | tr -s ' ')"
    grep -E 'error|check result' $OUT/logs/bench-$l.log | head -3
}
bench ln16384-shared 60 layernorm_bwd M=4096,N=16384 ''
bench rms32768-shared 80 rmsnorm_bwd M=8192,N=32768 '' --no-check
bench rms32768-looped 95 rmsnorm_bwd M=8192,N=32768 '{reload=false}' --no-check
bench ln32768-looped 110 layernorm_bwd M=8192,N=32768 '' --no-check
bench rmsf32-12288 120 rmsnorm_bwd_f32 M=2048,N=12288 '' --no-check
bench rmsf32-12288-looped 130 rmsnorm_bwd_f32 M=2048,N=12288 '{reload=false}' --no-check
bench lnf32-16384 140 layernorm_bwd_f32 M=4096,N=16384 '' --no-check
bench lnf32-16384-looped 150 layernorm_bwd_f32 M=4096,N=16384 '{reload=false}' --no-check
late 170 "check rms 1024x32768" || { timeout 40 $B/morf-run examples/rmsnorm_bwd.mlir --device gpu --random M=1024,N=32768 --check \
    --output-dir /tmp/chk >$OUT/logs/check-rms32768.log 2>&1; echo "check rmsnorm_bwd 1024x32768 rc=$?"; grep 'check result' $OUT/logs/check-rms32768.log; }
tar czf $OUT/raw.tgz -C $OUT logs json && rm -rf $OUT/logs $OUT/json
