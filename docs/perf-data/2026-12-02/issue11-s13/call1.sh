#!/usr/bin/env bash
# Session 13 call 1: splits sized by the kernel's occupancy at run time
# (fuse-mixed-reductions{partials=resident}), untuned (no tuning cache), against the plan's
# fixed split (the default) and two rounds (resident*2), on the benchmark rows' shapes and
# shapes outside the table; fp64 checks of the resident form at odd shapes on the GPU.
set -u
T0=$SECONDS
mkdir -p $OUT/logs $OUT/json
late() { [ $((SECONDS-T0)) -gt $1 ] && { echo "SKIPPED $2 (deadline)"; return 0; }; return 1; }
B=.device-bin
pipe() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions$1,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"; }
bench() { # label deadline file fuse-options args...
    local l=$1 d=$2 f=$3 o=$4; shift 4
    late $d "bench $l" && return
    timeout 200 $B/morf-bench examples/$f.mlir --tuning-cache none --fused-pipeline "$(pipe "$o")" "$@" --runs 100 --warmup 10 \
        --json $OUT/json/bench-$l.json >$OUT/logs/bench-$l.txt 2>$OUT/logs/bench-$l.log
    echo "== bench $l rc=$? t=$((SECONDS-T0)) $(grep -o 'copy: .*' $OUT/logs/bench-$l.log)"
    grep -E '^\| [0-9]' $OUT/logs/bench-$l.txt
}
# fp64 checks of the resident form on the GPU (odd shapes; M = 1000003 is the 576000 bucket).
for f in rmsnorm_bwd layernorm_bwd; do
    bench $f-check 60 $f '{partials=resident}' --sizes M=5003,N=384 --sizes M=4099,N=1000 --sizes M=7,N=100 --sizes M=1,N=384 \
        --sizes M=1000,N=5120 --sizes M=33791,N=768
done
S="--sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=32768,N=768 \
 --sizes M=131072,N=256 --sizes M=1000000,N=256 --sizes M=8388608,N=2 --sizes M=4096,N=16384"
for f in rmsnorm_bwd layernorm_bwd; do
    bench $f-fixed 300 $f '' $S --no-check
    bench $f-resident 380 $f '{partials=resident}' $S --no-check
    bench $f-resident2 460 $f '{partials=resident*2}' $S --no-check
done
for f in rmsnorm_bwd_f32 layernorm_bwd_f32; do
    bench $f-fixed 520 $f '' --sizes M=576000,N=384 --no-check
    bench $f-resident 540 $f '{partials=resident}' --sizes M=576000,N=384 --no-check
done
echo "t=$((SECONDS-T0))"
