#!/usr/bin/env bash
# Differential testing on the GPU (docs/testing.md, "Differential testing on the GPU").
#
#   tools/morf-run/scripts/gpu-difftest.sh build   # here, with Rust: build and copy the binaries
#                                                  # (morf-run and the gpu_differential and gpu_math
#                                                  # tests) to $BIN
#   tools/morf-run/scripts/gpu-difftest.sh [run]   # on the GPU machine, from the repository root
#
# `run` needs no Rust: it runs the prebuilt binaries of $BIN and writes under $OUT (at most 8
# files, one folder level):
#   random_programs.json examples.json determinism.json memory.json  (from the test binary)
#   sanitizer.tsv  sanitizer.log  difftest.log  summary.txt
# and prints summary.txt last. Without a GPU (or with DEVICE=sim) the test binary runs on the CPU
# simulator and the sanitizer step is skipped, which checks the whole flow locally.
#
# Parameters (environment):
#   BIN=.device-bin          the carried binaries
#   OUT=$OUT or .device-out/difftest
#   DEVICE=auto              gpu | sim | auto (MORF_GPU_DIFF_DEVICE)
#   PROGRAMS=2200 SEED=0     random programs: count and first seed
#   SEEDS=                   comma-separated seeds instead (to rerun failures)
#   THREADS=                 worker threads (default: all cores)
#   DET_RUNS=100 MEM_CALLS=10000
#   EXAMPLE_SHAPES=          MxN,... instead of the built-in odd and benchmark shapes
#   STEPS="random examples determinism memory math sanitizer"
#   SAN_SHAPES="M=1024,N=1024 M=7,N=100 M=4099,N=5120"  SAN_JOBS=8  SAN_TOOLS="memcheck racecheck"
#   T_RANDOM=120 T_EXAMPLES=100 T_DETERMINISM=80 T_MEMORY=50 T_MATH=60 T_SANITIZER=110 (seconds;
#   the sum, 520, fits a 540 s device call)  SAN_ONE_LIMIT=90 (one sanitizer run)
# The math step (tests/gpu_math.rs: max elementwise error of f32 exp/log/tanh/pow on the GPU)
# writes into difftest.log and one table into summary.txt, no file of its own.
set -uo pipefail

BIN=${BIN:-.device-bin}
mode=${1:-run}

if [[ $mode == build ]]; then
    set -e
    cargo build --release -p morf-run
    exe=$(cargo test --release -p morf-engine --test gpu_differential --no-run --message-format=json 2>/dev/null |
        grep -o '"executable":"[^"]*gpu_differential-[^"]*"' | tail -1 | sed 's/^"executable":"//; s/"$//')
    [[ -x $exe ]] || { echo "gpu-difftest: test binary not found" >&2; exit 1; }
    mkdir -p "$BIN"
    cp "${CARGO_TARGET_DIR:-target}/release/morf-run" "$BIN/morf-run"
    cp "$exe" "$BIN/gpu_differential"
    exe=$(cargo test --release -p morf-engine --test gpu_math --no-run --message-format=json 2>/dev/null |
        grep -o '"executable":"[^"]*gpu_math-[^"]*"' | tail -1 | sed 's/^"executable":"//; s/"$//')
    [[ -x $exe ]] || { echo "gpu-difftest: gpu_math test binary not found" >&2; exit 1; }
    cp "$exe" "$BIN/gpu_math"
    {
        echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "commit: $(git rev-parse HEAD 2>/dev/null)"
        echo "uncommitted changes in the build: $(git status --short --untracked-files=no 2>/dev/null | awk '{print $2}' | tr '\n' ' ')"
        echo "rustc: $(rustc --version)"
        echo "host: $(uname -m) $(ldd --version 2>/dev/null | head -1)"
    } >"$BIN/BUILD_INFO"
    ls -la "$BIN"
    exit 0
fi
[[ $mode == run ]] || { echo "usage: $0 [build|run]" >&2; exit 1; }

OUT=${OUT:-.device-out/difftest}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TMP=$(mktemp -d)
LOG=$OUT/difftest.log
SUMMARY=$OUT/summary.txt
: >"$LOG"
rm -f "$OUT/sanitizer.tsv" "$OUT/sanitizer.log"
: >"$SUMMARY"
STEPS=${STEPS:-random examples determinism memory math sanitizer}
T=$BIN/gpu_differential
R=$BIN/morf-run
for b in "$T" "$R"; do
    [[ -x $b ]] || { echo "gpu-difftest: $b is missing; run '$0 build' first and carry $BIN" >&2; exit 1; }
done

export MORF_GPU_DIFF_JSON_DIR=$OUT
export MORF_GPU_DIFF_EXAMPLES=$PWD/examples
export MORF_GPU_DIFF_DEVICE=${DEVICE:-auto}
export MORF_GPU_DIFF_PROGRAMS=${PROGRAMS:-2200}
export MORF_GPU_DIFF_SEED=${SEED:-0}
export MORF_GPU_DIFF_DET_RUNS=${DET_RUNS:-100}
export MORF_GPU_DIFF_MEM_CALLS=${MEM_CALLS:-10000}
[[ -n ${SEEDS:-} ]] && export MORF_GPU_DIFF_SEEDS=$SEEDS
[[ -n ${THREADS:-} ]] && export MORF_GPU_DIFF_THREADS=$THREADS
[[ -n ${EXAMPLE_SHAPES:-} ]] && export MORF_GPU_DIFF_EXAMPLE_SHAPES=$EXAMPLE_SHAPES

{
    echo "gpu-difftest $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) cores"
    cat "$BIN/BUILD_INFO" 2>/dev/null
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null ||
        echo "no nvidia-smi (DEVICE=$MORF_GPU_DIFF_DEVICE)"
    echo "programs=$MORF_GPU_DIFF_PROGRAMS seed=$MORF_GPU_DIFF_SEED seeds=${SEEDS:-} det_runs=$MORF_GPU_DIFF_DET_RUNS mem_calls=$MORF_GPU_DIFF_MEM_CALLS steps='$STEPS'"
} | tee -a "$LOG" >>"$SUMMARY"
echo "| step | exit | seconds |" >"$TMP/steps"

# step NAME TIMEOUT COMMAND...: runs COMMAND with a time limit, its output appended to the log.
step() {
    local name=$1 limit=$2 t0 rc
    shift 2
    t0=$(date +%s)
    echo "==> $name (limit ${limit}s): $*" | tee -a "$LOG"
    timeout -k 10 "$limit" "$@" >>"$LOG" 2>&1
    rc=$?
    [[ $rc == 124 || $rc == 137 ]] && echo "==> $name: TIMED OUT after ${limit}s" | tee -a "$LOG"
    echo "==> $name: exit $rc after $(($(date +%s) - t0)) s" >>"$LOG"
    echo "| $name | $rc | $(($(date +%s) - t0)) |" >>"$TMP/steps"
}

test_step() { step "$1" "$2" "$T" --exact "$3" --nocapture --test-threads=1; }

for s in $STEPS; do
    case $s in
    random) test_step random "${T_RANDOM:-120}" random_programs ;;
    examples) test_step examples "${T_EXAMPLES:-100}" examples_at_odd_shapes ;;
    determinism) test_step determinism "${T_DETERMINISM:-80}" column_reductions_are_deterministic ;;
    memory) test_step memory "${T_MEMORY:-50}" no_device_memory_growth ;;
    math) step math "${T_MATH:-60}" "$BIN/gpu_math" --exact accurate_math_on_the_gpu --nocapture --test-threads=1 ;;
    sanitizer) ;;
    *) echo "gpu-difftest: unknown step '$s'" | tee -a "$LOG" ;;
    esac
done

# compute-sanitizer over every example: `morf-run --device gpu --check` at each shape, each tool.
san_one() {
    local tool=$1 ex=$2 shape=$3 name log rc summary checks
    name=$tool-$(basename "$ex" .mlir)-${shape//[=,]/_}
    log=$SAN_TMP/$name.log
    timeout -k 5 "${SAN_ONE_LIMIT:-90}" compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 10 \
        "$R" "$ex" --device gpu --random "$shape" --check --output-dir "$SAN_TMP/$name.out" >"$log" 2>&1
    rc=$?
    summary=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | tail -1 | sed 's/^========= //')
    checks=$(grep -c ' ok$' "$log")/$(grep -c '^check result' "$log")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$(basename "$ex")" "$shape" "$rc" "${summary:-no summary}" "$checks"
}
if [[ " $STEPS " == *" sanitizer "* ]]; then
    t0=$(date +%s)
    if ! command -v compute-sanitizer >/dev/null || [[ $MORF_GPU_DIFF_DEVICE == sim ]]; then
        echo "==> sanitizer: skipped (no compute-sanitizer or DEVICE=sim)" | tee -a "$LOG"
        echo "| sanitizer | skipped | 0 |" >>"$TMP/steps"
    else
        export SAN_TMP=$TMP/san R
        export -f san_one
        mkdir -p "$SAN_TMP"
        printf 'tool\texample\tshape\texit\tsummary\tchecks ok\n' >"$OUT/sanitizer.tsv"
        echo "==> sanitizer: ${SAN_TOOLS:-memcheck racecheck} x ${SAN_SHAPES:-M=1024,N=1024 M=7,N=100 M=4099,N=5120}" | tee -a "$LOG"
        for tool in ${SAN_TOOLS:-memcheck racecheck}; do
            for ex in examples/*.mlir; do
                for shape in ${SAN_SHAPES:-M=1024,N=1024 M=7,N=100 M=4099,N=5120}; do echo "$tool $ex $shape"; done
            done
        done | timeout -k 10 "${T_SANITIZER:-110}" xargs -P "${SAN_JOBS:-8}" -L 1 bash -c 'san_one "$@"' _ |
            sort >>"$OUT/sanitizer.tsv"
        for f in "$SAN_TMP"/*.log; do
            echo "----- $(basename "$f")"
            head -c 20000 "$f"
        done >"$OUT/sanitizer.log" 2>/dev/null
        echo "| sanitizer | - | $(($(date +%s) - t0)) |" >>"$TMP/steps"
    fi
fi

# The short table, last.
{
    echo
    cat "$TMP/steps"
    if [[ -f $LOG ]]; then
        grep -E '^(== gpu differential: random|\| programs|\| [0-9]+ \| [0-9]+ \| [0-9]+ \||\| output dtype|\| (bf16|f16|f32|f64|int) \||large programs|failed seeds|no-kernel seeds|not run|FAIL seed)' "$LOG" | head -40
        grep -E '^== gpu differential: examples' "$LOG"
        grep -E '^\| [a-z_0-9]+\.mlir \| ' "$LOG" | awk -F'|' 'NF == 7 && $6 != " ok "' | head -20
        grep -E '^[0-9]+ runs, [0-9]+ passed' "$LOG"
        grep -E -A12 '^== gpu differential: determinism' "$LOG" | grep -E '^(==|\|)'
        grep -E -A3 '^== gpu differential: device memory' "$LOG" | grep -E '^(==|\|)'
        grep -E -A6 '^== gpu math' "$LOG" | grep -E '^(==|\||pow:)'
        grep -E '^(FAIL (exp|log|tanh|pow)|skipping: )' "$LOG" | head -10
        grep -E '^(thread .* panicked|test result:)' "$LOG" | head -10
    fi
    if [[ -s $OUT/sanitizer.tsv ]]; then
        runs=$(($(wc -l <"$OUT/sanitizer.tsv") - 1))
        clean=$(awk -F'\t' 'NR > 1 && $4 == 0 && $5 ~ /(^|[^0-9])0 (errors|hazards)/' "$OUT/sanitizer.tsv" | wc -l)
        set -- ${SAN_TOOLS:-memcheck racecheck}
        ntools=$#
        set -- ${SAN_SHAPES:-M=1024,N=1024 M=7,N=100 M=4099,N=5120}
        expected=$((ntools * $# * $(ls examples/*.mlir | wc -l)))
        echo "== compute-sanitizer: $runs of $expected runs finished, $clean clean (exit 0, 0 errors/hazards) =="
        awk -F'\t' 'NR > 1 && !($4 == 0 && $5 ~ /(^|[^0-9])0 (errors|hazards)/)' "$OUT/sanitizer.tsv" | head -20
        awk -F'\t' 'NR > 1 {print $1": "$5}' "$OUT/sanitizer.tsv" | sort | uniq -c
    fi
} >>"$SUMMARY"
cat "$SUMMARY"
rm -rf "$TMP"
