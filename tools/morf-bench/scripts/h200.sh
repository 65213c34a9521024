#!/usr/bin/env bash
# The benchmark of docs/perf.md: every row of the brief's tables (RMSNorm and LayerNorm
# backward, bf16 and fp32) timed fused vs unfused vs a copy kernel in the same run, then the
# odd shapes run once each with --check against the fp64 interpreter.
#
# Usage (from the repository root, on a machine with an NVIDIA GPU and release binaries):
#   BIN=target/release OUT=bench-out bash tools/morf-bench/scripts/h200.sh
# Writes the tables to stdout and JSON/logs under $OUT.
set -uo pipefail
BIN=${BIN:-target/release}
OUT=${OUT:-bench-out}
RUNS=${RUNS:-100}
mkdir -p "$OUT"
status=0

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true

bench() { # file json sizes...
    local file=$1 json=$2
    shift 2
    local args=()
    for s in "$@"; do args+=(--sizes "$s"); done
    echo "== $file"
    "$BIN/morf-bench" "$file" "${args[@]}" --unfused --runs "$RUNS" --warmup 10 --json "$OUT/$json" 2>"$OUT/$json.log" || {
        echo "morf-bench failed on $file (see $OUT/$json.log)"
        tail -20 "$OUT/$json.log"
        status=1
    }
}

bench examples/rmsnorm_bwd.mlir rms_bf16.json M=576000,N=384 M=65536,N=1024 M=32768,N=4096 M=16384,N=8192
bench examples/rmsnorm_bwd_f32.mlir rms_f32.json M=576000,N=384
bench examples/layernorm_bwd.mlir ln_bf16.json M=576000,N=384 M=65536,N=1024 M=32768,N=4096 M=16384,N=8192
bench examples/layernorm_bwd_f32.mlir ln_f32.json M=576000,N=384

echo "== odd shapes (morf-run --device gpu --check)"
for f in rmsnorm_bwd layernorm_bwd rmsnorm_bwd_f32; do
    for s in M=1,N=384 M=7,N=384 M=4096,N=1 M=4096,N=100 M=4096,N=5120 M=2048,N=12288 M=1000003,N=384; do
        if "$BIN/morf-run" "examples/$f.mlir" --device gpu --check --random "$s" --output-dir "$OUT/tmp" >"$OUT/odd.log" 2>&1; then
            echo "ok   $f $s: $(grep -o 'rel_err=[^ ]*' "$OUT/odd.log" | tr '\n' ' ')"
        else
            echo "FAIL $f $s"
            tail -5 "$OUT/odd.log"
            status=1
        fi
    done
done
rm -rf "$OUT/tmp"
exit $status
