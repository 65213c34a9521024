#!/usr/bin/env bash
# Session 11 call 1: several rows a warp (threads-per-row=16) on the 576000x384 rows, the wave
# tail of the tuned schedule (M = 540672: exactly 8 rounds of 264 CTAs at 256-row splits), and
# the shapes outside the table with their unfused pipeline. morf-bench, 100 calls, copy kernel
# in the same process. Usage: OUT=dir bash call1.sh (release binaries in .device-bin).
set -u
t0=$SECONDS
B=.device-bin
mkdir -p $OUT/logs $OUT/json
pipe() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
bench() { # label, args...
    local l=$1; shift
    if [ $((SECONDS-t0)) -gt ${DEADLINE:-520} ]; then echo "SKIPPED $l (deadline)"; return; fi
    timeout 60 $B/morf-bench "$@" --runs 100 --warmup 10 --json $OUT/json/$l.json >$OUT/logs/$l.txt 2>$OUT/logs/$l.log
    local rc=$?
    echo "== $l rc=$rc t=$((SECONDS-t0)) $(grep -o 'copy: .*' $OUT/logs/$l.log | head -1)"
    grep -E '^\| [0-9]' $OUT/logs/$l.txt
    grep -E 'check .*(FAIL|fail|mismatch)|error' $OUT/logs/$l.log | head -3
}
for f in rmsnorm_bwd layernorm_bwd; do
    bench $f-tuned examples/$f.mlir --sizes M=576000,N=384 --no-check
    bench $f-tuned-540672 examples/$f.mlir --sizes M=540672,N=384 --no-check
    for v in "splits=256|staged-rows=2 threads-per-row=16" "splits=256|rows-in-flight=2 threads-per-row=16" \
             "splits=512|staged-rows=2 threads-per-row=16" "splits=256|staged-rows=4 threads-per-row=16"; do
        l=$f-$(echo "$v" | tr -c 'a-z0-9' _)
        bench $l examples/$f.mlir --sizes M=576000,N=384 --no-check --tuning-cache none --fused-pipeline "$(pipe "${v%%|*}" "${v##*|}")"
    done
done
# The sub-warp schedules checked against fp64 at a small M of the same row length.
for f in rmsnorm_bwd layernorm_bwd; do
    for v in "splits=256|staged-rows=2 threads-per-row=16" "splits=256|rows-in-flight=2 threads-per-row=16"; do
        bench check-$f-$(echo "$v" | tr -c 'a-z0-9' _) examples/$f.mlir --sizes M=5003,N=384 --tuning-cache none --fused-pipeline "$(pipe "${v%%|*}" "${v##*|}")"
    done
done
# Shapes outside the table: the default (no cache entry: the cost model and the heuristic),
# fused and unfused, every output checked.
for f in rmsnorm_bwd layernorm_bwd; do
    for s in M=8388608,N=2 M=131072,N=256 M=32768,N=768 M=33791,N=768 M=1000000,N=256; do
        bench $f-${s//[=,]/_} examples/$f.mlir --sizes $s --unfused
    done
    bench $f-M_8388608_N_2-tpr32 examples/$f.mlir --sizes M=8388608,N=2 --no-check --tuning-cache none --fused-pipeline "$(pipe "" "threads-per-row=32")"
done
tar czf $OUT/raw.tgz -C $OUT logs json && rm -rf $OUT/logs $OUT/json
