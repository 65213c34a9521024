#!/usr/bin/env bash
# Calibration sweep of the fusion cost model (issue 10): times fused programs under forced
# schedule choices (split sizes of fuse-mixed-reductions, lower-loop-to-gpu options) with
# morf-bench, copy kernel in the same call, and prints one line per configuration:
#   file shape variant fused_us floor_us %floor  and the per-kernel times.
# The cost model's predictions for the same configurations come from
# `morf-opt ... --fusion-report` on any machine; docs/perf.md holds the comparison.
#
# Usage (repository root, GPU machine, release binaries in $BIN):
#   BIN=.device-bin OUT=out [MODE=sweep|final|large] bash tools/morf-bench/scripts/calibrate.sh [filter]
# MODE=sweep (default): forced split sizes; MODE=final: the defaults and the benchmark rows;
# MODE=large: every example at its largest benchmark shape (no 65536 x 1024 defaults);
# MODE=large-rows: the largest shape with one or two rows in flight forced ($PROGRAMS).
# MODE=staged: the largest shape with 1, 2, 4 or 8 rows staged through shared memory ($PROGRAMS).
# MODE=list: the configurations of $LIST (see below).
# MODE=chunk: chunk-major emission (lower-loop-to-gpu{chunk-major=true}) against the default.
# MODE=rows: row kernels with one or two rows in flight per warp, 8 or 4 warps ($PROGRAMS).
# LIMIT caps each morf-bench call (seconds; 90 by
# default: generating the 576000 x 384 inputs alone took over 25 s on the H200 host).
set -uo pipefail
BIN=${BIN:-target/release}
OUT=${OUT:-calib-out}
RUNS=${RUNS:-30}
FILTER=${1:-}
mkdir -p "$OUT/logs"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"

pipe() { # splits lower-loop-to-gpu-options [passes before lower-loop-to-gpu, "-" for none]
    local fuse="fuse-mixed-reductions"
    [ -n "$1" ] && fuse="fuse-mixed-reductions{splits=$1}"
    local l2g="lower-loop-to-gpu"
    [ -n "$2" ] && l2g="lower-loop-to-gpu{$2}"
    local pre="${3:-invariant-divisor-to-reciprocal}"
    if [ "$pre" = - ]; then pre=""; else pre="$pre,"; fi
    echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,$fuse,canonicalize,cse,$pre$l2g)"
}

run() { # name file sizes splits l2g-options [pre-passes]
    local name=$1 file=$2 sizes=$3 splits=$4 opts=$5 pre=${6:-}
    case "$name" in *"$FILTER"*) ;; *) return ;; esac
    local log="$OUT/logs/$name.log"
    timeout "${LIMIT:-90}" "$BIN/morf-bench" "$file" --sizes "$sizes" --fused-pipeline "$(pipe "$splits" "$opts" "$pre")" \
        --runs "$RUNS" --warmup 5 --no-check --per-kernel >"$log" 2>&1
    local med floor
    med=$(grep -o 'fused: median [0-9.]* us' "$log" | head -1 | awk '{print $3}')
    floor=$(grep -E '^\| [0-9]+ x' "$log" | head -1 | awk -F'|' '{gsub(/ /,"",$7); print $7}')
    local kern
    kern=$(awk -F'|' '$3 ~ /_k[0-9]/ {gsub(/ /,"",$3); gsub(/ /,"",$4); gsub(/ /,"",$7); printf "%s[%s]=%s ", $3, $4, $7}' "$log")
    printf '%-44s %-16s S=%-5s %-34s fused=%-8s floor=%-7s %s\n' "$name" "$sizes" "${splits:-auto}" "${opts:--}" \
        "${med:-FAIL}" "${floor:-?}" "$kern" | tee -a "$SUMMARY"
}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
S=M=65536,N=1024
sizes_of() { # the example's sizes at 65536 x 1024 (3-D: 64 x 1024 x 1024; a second M: K)
    if grep -q '"B"' "$1"; then echo B=64,M=1024,N=1024
    elif grep -q '"K"' "$1"; then echo M=65536,K=65536,N=1024
    else echo $S; fi
}
MODE=${MODE:-sweep}
# Defaults: every example at 65536 x 1024 (not in MODE=large or rows).
if [ "$MODE" = sweep ] || [ "$MODE" = final ]; then
    for f in examples/*.mlir; do
        b=$(basename "$f" .mlir)
        run "default-$b" "$f" "$(sizes_of "$f")" "" ""
    done
fi
if [ "$MODE" = final ]; then
    # The benchmark rows of docs/perf.md (issue 10's table).
    for b in rmsnorm_bwd layernorm_bwd; do
        for sz in M=576000,N=384 M=32768,N=4096 M=16384,N=8192; do run "bench-$b-$sz" "examples/$b.mlir" $sz "" ""; done
        run "bench-${b}_f32-M=576000,N=384" "examples/${b}_f32.mlir" M=576000,N=384 "" ""
    done
elif [ "$MODE" = large ]; then
    # Every example at its largest benchmark shape (16384 x 8192; 3-D: 16 x 1024 x 8192).
    for f in examples/*.mlir; do
        b=$(basename "$f" .mlir)
        sz=M=16384,N=8192
        if grep -q '"B"' "$f"; then sz=B=16,M=1024,N=8192
        elif grep -q '"K"' "$f"; then sz=M=16384,K=16384,N=8192; fi
        run "large-$b" "$f" "$sz" "" ""
    done
elif [ "$MODE" = list ]; then
    # One configuration per line of $LIST: name|file|sizes|splits|l2g-options|pre-passes
    # (empty fields: defaults; pre-passes "-": none before lower-loop-to-gpu).
    while IFS='|' read -r name file sizes splits opts pre; do
        case "$name" in ''|'#'*) continue ;; esac
        run "$name" "$file" "$sizes" "$splits" "$opts" "$pre"
    done <"$LIST"
elif [ "$MODE" = chunk ]; then
    # Chunk-major emission of register-resident row kernels against the default, every
    # example at 65536 x 1024 and at its largest shape ($PROGRAMS: a subset).
    for f in examples/*.mlir; do
        b=$(basename "$f" .mlir)
        case " ${PROGRAMS:-$b} " in *" $b "*) ;; *) continue ;; esac
        big=M=16384,N=8192
        if grep -q '"B"' "$f"; then big=B=16,M=1024,N=8192
        elif grep -q '"K"' "$f"; then big=M=16384,K=16384,N=8192; fi
        for sz in "$(sizes_of "$f")" "$big"; do
            run "op-$b-$sz" "$f" "$sz" "" ""
            run "chunk-$b-$sz" "$f" "$sz" "" "chunk-major=true"
        done
    done
elif [ "$MODE" = large-rows ]; then
    # The largest shape with one or two rows in flight forced ($PROGRAMS).
    for b in ${PROGRAMS:-layernorm_fwd rmsnorm_fwd rmsnorm_bwd tanh_bwd_bias reduce3d colmax_rowsum}; do
        f=examples/$b.mlir
        sz=M=16384,N=8192
        if grep -q '"B"' "$f"; then sz=B=16,M=1024,N=8192; fi
        run "large-$b-r1" "$f" "$sz" "" "rows-in-flight=1"
        run "large-$b-r2" "$f" "$sz" "" "rows-in-flight=2"
    done
elif [ "$MODE" = staged ]; then
    # The largest shape with 1 (none), 2, 4 or 8 rows staged through shared memory ($PROGRAMS).
    for b in ${PROGRAMS:-layernorm_fwd rmsnorm_bwd tanh_bwd_bias}; do
        f=examples/$b.mlir
        for r in 1 2 4 8; do run "staged-$b-$r" "$f" M=16384,N=8192 "" "staged-rows=$r"; done
    done
elif [ "$MODE" = rows ]; then
    # Register-resident row kernels: one or two rows in flight per warp, CTAs of 8 warps
    # (S = 256) or 4 warps (S = 128).
    for b in ${PROGRAMS:-row_col_stats colmax_rowsum softmax_fwd_colsum rmsnorm_bwd layernorm_bwd rmsnorm_fwd tanh_bwd_bias}; do
        f=examples/$b.mlir
        run "rows-$b-r1" "$f" "$(sizes_of "$f")" "" "rows-in-flight=1"
        run "rows-$b-r2" "$f" "$(sizes_of "$f")" "" "rows-in-flight=2"
        run "rows-$b-r2-w4-S128" "$f" "$(sizes_of "$f")" 128 "rows-in-flight=2 rows-per-cta=4"
        run "rows-$b-r1-w4-S128" "$f" "$(sizes_of "$f")" 128 "rows-in-flight=1 rows-per-cta=4"
    done
else
    # Split sweeps of the mixed-order row-fused kernels.
    for b in rmsnorm_bwd layernorm_bwd rmsnorm_bwd_f32 softmax_bwd_colsum row_col_stats; do
        for sp in 16 32 64 128 256; do run "split-$b-$sp" "examples/$b.mlir" $S "$sp" ""; done
    done
    for sp in 32 64 128 256 512; do run "split576-rmsnorm_bwd-$sp" examples/rmsnorm_bwd.mlir M=576000,N=384 "$sp" ""; done
    for sp in 8 16 32 64; do run "split8k-rmsnorm_bwd-$sp" examples/rmsnorm_bwd.mlir M=16384,N=8192 "$sp" ""; done
    # Partial-pointwise column reductions (bias gradients).
    for b in tanh_bwd_bias gelu_bwd_bias; do
        for sp in 16 64 256; do run "split-$b-$sp" "examples/$b.mlir" $S "$sp" ""; done
    done
    # Row kernels: a CTA per row (default at N=1024) against a warp per row.
    for b in rmsnorm_fwd layernorm_fwd; do
        run "warp-$b" "examples/$b.mlir" $S "" "threads=256 threads-per-row=32"
    done
fi
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
echo "== summary"
cat "$SUMMARY"
