#!/usr/bin/env bash
# Session 13 call 3: the `gpu` pipeline's new default, fuse-mixed-reductions{partials=resident}
# with the plan's split as the shortest split (call 2 found LayerNorm at 4096 x 16384 6% slower
# with more partials than the plan's), untuned (no tuning cache), on the shapes of calls 1-2;
# fp64 checks at odd shapes; and the committed cache's programs (now pinned with partials=0).
set -u
T0=$SECONDS
mkdir -p $OUT/logs $OUT/json
late() { [ $((SECONDS-T0)) -gt $1 ] && { echo "SKIPPED $2 (deadline)"; return 0; }; return 1; }
B=.device-bin
bench() { # label deadline timeout file args...
    local l=$1 d=$2 t=$3 f=$4; shift 4
    late $d "bench $l" && return
    timeout $t $B/morf-bench examples/$f.mlir "$@" --runs 100 --warmup 10 \
        --json $OUT/json/bench-$l.json >$OUT/logs/bench-$l.txt 2>$OUT/logs/bench-$l.log
    echo "== bench $l rc=$? t=$((SECONDS-T0))"
}
for f in rmsnorm_bwd layernorm_bwd; do
    bench $f-check 40 40 $f --tuning-cache none --sizes M=4099,N=1000 --sizes M=1,N=384 --sizes M=1000,N=5120 --sizes M=4099,N=16384
done
S="--sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=32768,N=768 \
 --sizes M=131072,N=256 --sizes M=1000000,N=256 --sizes M=8388608,N=2 --sizes M=4096,N=16384"
bench rmsnorm_bwd-default 100 150 rmsnorm_bwd --tuning-cache none $S --no-check
bench layernorm_bwd-default 250 150 layernorm_bwd --tuning-cache none $S --no-check
bench rmsnorm_bwd-cache 390 60 rmsnorm_bwd --sizes M=576000,N=384 --sizes M=65536,N=1024 --no-check
python3 - $OUT/json <<'PY'
import json, glob, sys, os
for p in sorted(glob.glob(sys.argv[1] + '/*.json')):
    d = json.load(open(p))
    for s in d['shapes']:
        f = s.get('fused') or {}
        print(f"{os.path.basename(p)[6:-5]:24s} {s['shape']:16s} {f.get('median_us', 0):9.1f} us {f.get('pct_of_floor', 0):5.1f}% ok={f.get('check_ok')}")
PY
echo "t=$((SECONDS-T0))"
