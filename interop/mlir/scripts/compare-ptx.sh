#!/usr/bin/env bash
# The two PTX paths side by side on a GPU (issue 12): morf's own PTX and MLIR's
# (convert-gpu-to-nvvm, gpu-module-to-binary{format=isa}) for the same lowering of each example,
# each timed by morf-bench with the copy kernel in the same call and checked against fp64.
#
#   STEP=prepare OPT=<morf-opt built with --features mlir> OUT=ptx-dir bash interop/mlir/scripts/compare-ptx.sh
#       (on a machine with LLVM/MLIR 22: writes OUT/<example>.<shape>.mlir.ptx)
#   STEP=run BIN=.device-bin PTX=ptx-dir OUT=out bash interop/mlir/scripts/compare-ptx.sh
#       (on the GPU machine, which needs no MLIR: morf-bench --ptx loads MLIR's kernels)
# Both steps use the untuned pipeline (--tuning-cache none): the PTX must come from the same
# lowering, and morf-bench refuses a file whose kernels or parameter counts differ.
set -uo pipefail
STEP=${STEP:-run}
OUT=${OUT:-ptx-compare}
SHAPES=${SHAPES:-"M=65536,N=1024 M=4093,N=1000"}
mkdir -p "$OUT"
sizes_of() { # an example's sizes for shape $2 (3-D and two-M examples get their own dims)
    if grep -q '"B"' "$1"; then echo "B=64,M=1024,${2#*,}"
    elif grep -q '"K"' "$1"; then m=${2%%,*}; echo "$m,K=${m#M=},${2#*,}"
    else echo "$2"; fi
}
for f in examples/*.mlir; do
    b=$(basename "$f" .mlir)
    for s in $SHAPES; do
        sz=$(sizes_of "$f" "$s")
        ptx="$OUT/$b.${sz//[=,]/_}.mlir.ptx"
        case "$STEP" in
        prepare)
            "$OPT" "$f" --pipeline=gpu --size-hints "$sz" --emit=ptx --ptx-backend=mlir -o "$ptx" || echo "FAIL prepare $b $sz"
            ;;
        run)
            for which in morf mlir; do
                extra=()
                [ "$which" = mlir ] && extra=(--ptx "${PTX:-$OUT}/$(basename "$ptx")")
                if timeout 120 "$BIN/morf-bench" "$f" --sizes "$sz" --tuning-cache none --runs "${RUNS:-50}" --warmup 5 \
                    "${extra[@]}" --json "$OUT/$b.${sz//[=,]/_}.$which.json" >"$OUT/$b.$which.txt" 2>"$OUT/$b.$which.log"; then
                    echo "$which $b $sz: $(grep -E '^\| [0-9]' "$OUT/$b.$which.txt" | head -1)"
                else
                    echo "FAIL $which $b $sz"; tail -3 "$OUT/$b.$which.log"
                fi
            done
            ;;
        esac
    done
done
