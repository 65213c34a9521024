#!/usr/bin/env bash
# Session 12 call 2: the reload form at 4096 x 16384 (the heuristic's, and forced variants),
# 100000 x 32768 (inputs generated for the GPU alone), reload at 65536 x 1024, and morf-tune's
# view of the small-floor shapes (which knobs reach 80%).
set -u
T0=$SECONDS
mkdir -p $OUT/logs $OUT/json
late() { [ $((SECONDS-T0)) -gt $1 ] && { echo "SKIPPED $2 (deadline)"; return 0; }; return 1; }
B=.device-bin
bench() { # label deadline file args...
    local l=$1 d=$2 f=$3; shift 3
    late $d "bench $l" && return
    timeout 150 $B/morf-bench examples/$f.mlir "$@" --runs 100 --warmup 10 --json $OUT/json/bench-$l.json \
        >$OUT/logs/bench-$l.txt 2>$OUT/logs/bench-$l.log
    echo "== bench $l rc=$? t=$((SECONDS-T0))"; grep -E '^\| [0-9]' $OUT/logs/bench-$l.txt | cut -d'|' -f2,4,5,7,8,9,10
    grep -E 'error' $OUT/logs/bench-$l.log | head -3
}
P() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions$1,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu$2)"; }
for f in rmsnorm_bwd layernorm_bwd; do
    bench $f-16384 60 $f --sizes M=4096,N=16384 --unfused
    bench $f-16384-t1024 80 $f --sizes M=4096,N=16384 --no-check --fused-pipeline "$(P '' '{threads=1024 reload=true}')"
    bench $f-16384-nostage 100 $f --sizes M=4096,N=16384 --no-check --fused-pipeline "$(P '' '{staged-rows=1}')"
done
bench rmsnorm_bwd-1024-reload 130 rmsnorm_bwd --sizes M=65536,N=1024 --no-check --fused-pipeline "$(P '{splits=512}' '{reload=true}')"
bench layernorm_bwd-1024-reload 140 layernorm_bwd --sizes M=65536,N=1024 --no-check --fused-pipeline "$(P '{splits=512}' '{reload=true}')"
t() { # file sizes knobs trials deadline
    local f=$1 s=$2 k=$3 n=$4 d=$5 l=$1-${2//[=,]/_}
    late $d "tune $l" && return
    timeout 100 $B/morf-tune examples/$f.mlir --sizes $s --cache /tmp/c.json --knobs $k --rounds 1 --max-trials $n \
        --runs 20 --final-runs 40 --json $OUT/json/tune-$l.json >$OUT/logs/tune-$l.txt 2>$OUT/logs/tune-$l.log
    echo "== tune $l rc=$? t=$((SECONDS-T0))"; grep -E '^\| M' $OUT/logs/tune-$l.txt | tail -1
    grep -o "trial [0-9]*: .*" $OUT/logs/tune-$l.log | cut -c1-120 | sed 's/^/   /'
}
K=rows-in-flight,min-ctas,final,partials,threads-per-row,staged-rows,splits,reload
t rmsnorm_bwd M=32768,N=768 $K 16 200
t layernorm_bwd M=32768,N=768 $K 16 270
t rmsnorm_bwd M=131072,N=256 $K 16 340
for f in rmsnorm_bwd layernorm_bwd; do
    bench $f-32768 430 $f --sizes M=100000,N=32768 --no-check
done
cp /tmp/c.json $OUT/json/cache.json 2>/dev/null
tar czf $OUT/raw.tgz -C $OUT logs json && rm -rf $OUT/logs $OUT/json
