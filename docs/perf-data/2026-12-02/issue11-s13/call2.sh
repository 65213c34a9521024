#!/usr/bin/env bash
# Session 13 call 2 (after call 1 found LayerNorm's two partials split by two placeholders,
# which sent its row kernel to one thread): LayerNorm backward with one placeholder per
# kernel, fp64 checks on the GPU, then untuned fixed split against partials=resident for
# LayerNorm bf16, the fp32 rows and the other examples at 65536 x 1024.
set -u
T0=$SECONDS
mkdir -p $OUT/logs $OUT/json
late() { [ $((SECONDS-T0)) -gt $1 ] && { echo "SKIPPED $2 (deadline)"; return 0; }; return 1; }
B=.device-bin
pipe() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions$1,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"; }
bench() { # label deadline timeout file fuse-options args...
    local l=$1 d=$2 t=$3 f=$4 o=$5; shift 5
    late $d "bench $l" && return
    timeout $t $B/morf-bench examples/$f.mlir --tuning-cache none --fused-pipeline "$(pipe "$o")" "$@" --runs 100 --warmup 10 \
        --json $OUT/json/bench-$l.json >$OUT/logs/bench-$l.txt 2>$OUT/logs/bench-$l.log
    echo "== bench $l rc=$? t=$((SECONDS-T0))"
}
bench layernorm_bwd-check 30 60 layernorm_bwd '{partials=resident}' --sizes M=5003,N=384 --sizes M=4099,N=1000 --sizes M=7,N=100 \
    --sizes M=1,N=384 --sizes M=1000,N=5120 --sizes M=33791,N=768
grep -h 'check\|median' $OUT/logs/bench-layernorm_bwd-check.log | cut -c1-120
S="--sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=32768,N=768 \
 --sizes M=131072,N=256 --sizes M=1000000,N=256 --sizes M=8388608,N=2 --sizes M=4096,N=16384"
bench layernorm_bwd-fixed 100 150 layernorm_bwd '' $S --no-check
bench layernorm_bwd-resident 260 150 layernorm_bwd '{partials=resident}' $S --no-check
for f in rmsnorm_bwd_f32 layernorm_bwd_f32; do
    bench $f-fixed 400 40 $f '' --sizes M=576000,N=384 --no-check
    bench $f-resident 410 40 $f '{partials=resident}' --sizes M=576000,N=384 --no-check
done
for f in softmax_fwd_colsum gelu_bwd_bias colmax_rowsum row_col_stats tanh_bwd_bias; do
    bench $f-fixed 440 25 $f '' --sizes M=65536,N=1024 --no-check
    bench $f-resident 450 25 $f '{partials=resident}' --sizes M=65536,N=1024 --no-check
done
python3 - $OUT/json <<'PY'
import json, glob, sys, os
for p in sorted(glob.glob(sys.argv[1] + '/*.json')):
    d = json.load(open(p))
    for s in d['shapes']:
        f = s.get('fused') or {}
        print(f"{os.path.basename(p)[6:-5]:28s} {s['shape']:16s} {f.get('median_us', 0):9.1f} us {f.get('pct_of_floor', 0):5.1f}% ok={f.get('check_ok')}")
PY
echo "t=$((SECONDS-T0))"
