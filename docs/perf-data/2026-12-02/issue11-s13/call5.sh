#!/usr/bin/env bash
# Session 13 call 5: after removing the kernel's 64-bit division for splits sized at run time
# (call 4: a div.u64 anywhere made ptxas compile the shuffles as collectives): LayerNorm at
# 4096 x 16384 with the new default, and the committed cache's tuned rows at 576000 x 384
# (partials=528 / 264: the same run-time split path).
set -u
B=.device-bin
mkdir -p $OUT/logs $OUT/json
run() { # label file args...
    local l=$1 f=$2; shift 2
    timeout 60 $B/morf-bench examples/$f.mlir "$@" --no-check --runs 100 --warmup 10 --json $OUT/json/$l.json > $OUT/logs/$l.txt 2>&1
    echo "$l: rc=$? $(grep -o '[0-9]* x [0-9]*: median [0-9.]* us\|[0-9]* x [0-9]* fused: median [0-9.]* us' $OUT/logs/$l.txt | tr '\n' ' ') $(grep -o 'copy: .*TB/s' $OUT/logs/$l.txt)"
}
run ln-default layernorm_bwd --tuning-cache none --sizes M=4096,N=16384 --sizes M=16384,N=8192
run rms-cache rmsnorm_bwd --sizes M=576000,N=384
run ln-cache layernorm_bwd --sizes M=576000,N=384
