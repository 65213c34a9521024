#!/bin/sh
# sim_vs_interp.sh FILE.mlir PIPELINE SIZES RTOL OUTDIR
# Runs FILE in the interpreter (reference) and, lowered by PIPELINE (pass-pipeline text),
# on the GPU simulator with the same random inputs, then compares with compare.py.
set -e
file=$1; pipe=$2; sizes=$3; rtol=$4; out=$5
here=$(dirname "$0")
morf-run "$file" --random "$sizes" --seed 3 --output-dir "$out/ref" > /dev/null
morf-opt "$file" --pass-pipeline="$pipe" > "$out/gpu.mlir"
morf-run "$out/gpu.mlir" --device sim --random "$sizes" --seed 3 --output-dir "$out/sim" > /dev/null
python3 "$here/compare.py" "$out/ref" "$out/sim" --rtol "$rtol"
