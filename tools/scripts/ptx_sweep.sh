#!/bin/bash
# Compiles every example of examples/ at a list of shapes to PTX, with and without the
# committed tuning cache, assembles each module with ptxas (-arch=sm_90 -v), and reports the
# spills and the registers of every kernel. No GPU needed: this is how the twenty-sixth
# session found the spills docs/perf.md lists, and how it checked that a refactoring leaves
# the PTX byte for byte as it was (`--compare`).
#
#   tools/scripts/ptx_sweep.sh OUT [--pipeline gpu|gpu-unfused] [--opt BIN] [--shapes "MxN ..."]
#   tools/scripts/ptx_sweep.sh --compare DIR_A DIR_B
#
# OUT gets, per example, shape and cache (`none`, `builtin`), the PTX (`E.MxN.C.ptx`), morf-opt's
# stderr (`.err`) and ptxas' log (`.log`), plus `regs.txt` (a line per kernel: example, shape,
# cache, kernel, registers) and `spills.txt` (a line per kernel that spills; empty: none).
# reduce3d takes B = 64 and M / 64. `--opt` is the morf-opt binary (default
# target/release/morf-opt, built with `cargo build --release -p morf-opt`); ptxas is
# `$MORF_PTXAS`, else the one of the `nvidia-cuda-nvcc` wheel, else `ptxas` on PATH.
# `--compare` prints the modules whose PTX differs between two OUT folders and their count.
# Modules compile in parallel (`JOBS`, default: the core count); regs.txt and spills.txt are
# then in completion order.
# Exit status: 1 on a morf-opt or ptxas failure, or on a spill; else 0.
set -u
if [ "${1:-}" = "--compare" ]; then
  a=$2 b=$3 n=0 total=0
  for f in "$a"/*.ptx; do
    total=$((total + 1))
    cmp -s "$f" "$b/$(basename "$f")" || { echo "differs: $(basename "$f")"; n=$((n + 1)); }
  done
  echo "$n of $total modules differ"
  exit 0
fi
out=${1:?usage: ptx_sweep.sh OUT [--pipeline P] [--opt BIN] [--shapes LIST]}
shift
pipeline=gpu
opt=target/release/morf-opt
shapes="65536x1024 576000x384 1000000x256 16384x8192 32768x4096 4096x16384 100000x32768 32768x768 33791x768 131072x256 8388608x2"
while [ $# -gt 0 ]; do
  case $1 in
    --pipeline) pipeline=$2; shift 2 ;;
    --opt) opt=$2; shift 2 ;;
    --shapes) shapes=$2; shift 2 ;;
    *) echo "ptx_sweep.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
ptxas=${MORF_PTXAS:-}
if [ -z "$ptxas" ]; then
  ptxas=$(python3 -c 'import nvidia, os; p = os.path.dirname(nvidia.__path__[0] + "/"); print(next((os.path.join(p, d, "bin", "ptxas") for d in ("cu13", "cuda_nvcc") if os.path.exists(os.path.join(p, d, "bin", "ptxas"))), ""))' 2>/dev/null)
fi
[ -n "$ptxas" ] || ptxas=$(command -v ptxas || true)
[ -x "$ptxas" ] || { echo "ptx_sweep.sh: no ptxas (pip install nvidia-cuda-nvcc, or set MORF_PTXAS)" >&2; exit 1; }
[ -x "$opt" ] || { echo "ptx_sweep.sh: no morf-opt at '$opt'" >&2; exit 1; }
mkdir -p "$out"
: > "$out/regs.txt"
: > "$out/spills.txt"
: > "$out/failures.txt"
one() {
  local e=$1 s=$2 c=$3 m=${2%x*} n=${2#*x} base h ca=()
  base=$out/$e.$s.$c
  if [ "$e" = reduce3d ]; then h="B=64,M=$((m / 64)),N=$n"; else h="M=$m,N=$n"; fi
  [ "$c" = builtin ] && ca=(--tuning-cache builtin)
  if ! "$opt" "examples/$e.mlir" --pipeline="$pipeline" --size-hints "$h" "${ca[@]}" --emit=ptx -o "$base.ptx" 2> "$base.err"; then
    echo "$e $s $c: morf-opt failed" >> "$out/failures.txt"
    return
  fi
  "$ptxas" -arch=sm_90 -v "$base.ptx" -o /dev/null > "$base.log" 2>&1 || echo "$e $s $c: ptxas failed" >> "$out/failures.txt"
  awk -v k="$e $s $c" -v regs="$out/regs.txt" -v spills="$out/spills.txt" '
    /Compiling entry function/ { split($0, a, "'"'"'"); fn = a[2] }
    /bytes spill stores/ { if ($5 + 0 > 0 || $9 + 0 > 0) print k, fn, $0 >> spills }
    /Used [0-9]+ registers/ { match($0, /Used [0-9]+/); print k, fn, substr($0, RSTART + 5, RLENGTH - 5) >> regs }
  ' "$base.log"
}
# One job per module, as many at once as the machine has cores (`JOBS` to set).
export -f one
export out opt ptxas pipeline
for f in examples/*.mlir; do
  e=$(basename "$f" .mlir)
  for s in $shapes; do
    for c in none builtin; do
      echo "$e $s $c"
    done
  done
done | xargs -P "${JOBS:-$(nproc)}" -L 1 bash -c 'one "$0" "$1" "$2"'
modules=$(ls "$out"/*.ptx 2>/dev/null | wc -l)
echo "$modules modules ($pipeline), $(wc -l < "$out/regs.txt") kernels, $(wc -l < "$out/spills.txt") spilling, $(wc -l < "$out/failures.txt") failures"
cat "$out/spills.txt" "$out/failures.txt"
[ -s "$out/spills.txt" ] || [ -s "$out/failures.txt" ] && exit 1
exit 0
