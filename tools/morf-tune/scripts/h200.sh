#!/usr/bin/env bash
# The tuning sweep and its evidence on the H200 (issue 11; docs/perf.md, docs/tuning.md).
#
# Usage (repository root, GPU machine, release binaries and the peers' scripts in $BIN):
#   BIN=.device-bin OUT=out STEP=tune|bench|evidence bash tools/morf-tune/scripts/h200.sh
#
# STEP=tune      morf-tune on every benchmark row (RMSNorm and LayerNorm backward, bf16 at four
#                shapes and fp32 at 576000 x 384), each winner checked against fp64, into the
#                cache $CACHE (default $OUT/h200.json); one JSON report per file under $OUT.
# STEP=bench     morf-bench with the cache and without it (--tuning-cache none), the unfused
#                pipeline and the copy kernel in the same call, then Inductor's defaults
#                ($BIN/peers/anchors.py) in the same device call.
# STEP=evidence  ncu's DRAM throughput of each row's main kernel, ptxas registers and spills
#                (the JIT's log), compute-sanitizer memcheck and racecheck on each row's tuned
#                program and on the odd shapes, and the odd shapes checked against fp64.
# STEP=long      morf-tune on the long rows of issue 11 (RMSNorm and LayerNorm backward, bf16):
#                4096 x 16384, 8192 x 32768 (checked) and 100000 x 32768 (unchecked: the host's
#                fp64 reference of 3.3 G elements is too slow), with the cluster recipes.
# STEP=unfused   morf-tune on the unfused pipeline at 576000 x 384 (the fair baseline).
# STEP=examples  morf-tune on every example at 65536 x 1024 (3-D: 64 x 1024 x 1024) and on
#                shapes outside the benchmark table (32768x768, 33791x768, 131072x256,
#                1000000x256, 8388608x2) for the backward norms.
# STEP=spans     the bucket question (docs/fusion.md, "Over a range of sizes"): the norms compiled
#                for the bucket M~2^19 (hints M=524288) with and without hint-spans=M=2, each
#                timed at M = 524288, 576000, 786432 and 1000003 (one program per bucket).
# STEP=lanes     several rows a warp (docs/conversion-loop-to-gpu.md): threads-per-row 8, 16
#                and 32 on the 576000x384 rows (tuned splits and staging), and the shapes
#                outside the table (8388608x2, 131072x256, 1000000x256, 32768x768, 33791x768)
#                with the default heuristic against threads-per-row=32; each checked once.
# BUNDLE=1 packs everything under $OUT into $OUT/bundle.tgz at the end (the device machine
# returns a limited number of files: the ninth and tenth sessions lost per-candidate JSON).
# KNOBS, TRIALS, ROUNDS restrict the search (the ninth session's call 2 used
# KNOBS=splits,threads,rows-in-flight,staged-rows,min-ctas,final TRIALS=22 ROUNDS=1).
set -uo pipefail
BIN=${BIN:-target/release}
OUT=${OUT:-tune-out}
CACHE=${CACHE:-$OUT/h200.json}
STEP=${STEP:-tune}
LIMIT=${LIMIT:-150}
mkdir -p "$OUT/logs"
bundle() {
    local t
    t=$(mktemp -d)
    tar czf "$t/bundle.tgz" -C "$OUT" . && rm -rf "${OUT:?}"/* && mv "$t/bundle.tgz" "$OUT/bundle.tgz"
    rmdir "$t"
}
if [ -n "${BUNDLE:-}" ]; then trap bundle EXIT; fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true

# The `gpu` pipeline as text, with options for fuse-mixed-reductions ($1) and lower-loop-to-gpu ($2).
gpu_pipeline() {
    echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"
}

ROWS_BF16="M=576000,N=384 M=65536,N=1024 M=32768,N=4096 M=16384,N=8192"
tune() { # file pipeline label sizes...
    local file=$1 pipeline=$2 label=$3
    shift 3
    local args=()
    for s in "$@"; do args+=(--sizes "$s"); done
    timeout "$LIMIT" "$BIN/morf-tune" "$file" "${args[@]}" --pipeline "$pipeline" --cache "$CACHE" \
        --runs "${RUNS:-20}" --final-runs "${FINAL_RUNS:-50}" --max-trials "${TRIALS:-40}" --rounds "${ROUNDS:-2}" \
        ${KNOBS:+--knobs "$KNOBS"} ${NO_CHECK:+--no-check} \
        --json "$OUT/tune-$label.json" >"$OUT/logs/tune-$label.txt" 2>"$OUT/logs/tune-$label.log"
    echo "== $label (rc=$?)"
    cat "$OUT/logs/tune-$label.txt"
}

case "$STEP" in
tune)
    for f in rmsnorm_bwd layernorm_bwd; do
        for s in $ROWS_BF16; do tune "examples/$f.mlir" gpu "$f-${s//[=,]/_}" "$s"; done
        tune "examples/${f}_f32.mlir" gpu "${f}_f32-M_576000_N_384" M=576000,N=384
    done
    ;;
examples)
    for f in examples/*.mlir; do
        b=$(basename "$f" .mlir)
        s=M=65536,N=1024
        grep -q '"B"' "$f" && s=B=64,M=1024,N=1024
        grep -q '"K"' "$f" && s=M=65536,K=65536,N=1024
        tune "$f" gpu "$b-${s//[=,]/_}" "$s"
    done
    for f in rmsnorm_bwd layernorm_bwd; do
        for s in M=32768,N=768 M=33791,N=768 M=131072,N=256 M=1000000,N=256 M=8388608,N=2; do
            tune "examples/$f.mlir" gpu "$f-${s//[=,]/_}" "$s"
        done
    done
    ;;
long)
    for f in rmsnorm_bwd layernorm_bwd; do
        for s in M=4096,N=16384 M=8192,N=32768; do tune "examples/$f.mlir" gpu "$f-${s//[=,]/_}" "$s"; done
        NO_CHECK=1 tune "examples/$f.mlir" gpu "$f-M_100000_N_32768" M=100000,N=32768
    done
    ;;
unfused)
    for f in rmsnorm_bwd layernorm_bwd; do tune "examples/$f.mlir" gpu-unfused "$f-unfused" M=576000,N=384; done
    ;;
bench)
    for f in rmsnorm_bwd layernorm_bwd; do
        for c in "$CACHE" none; do
            tag=$([ "$c" = none ] && echo untuned || echo tuned)
            timeout 240 "$BIN/morf-bench" "examples/$f.mlir" $(for s in $ROWS_BF16; do echo --sizes "$s"; done) \
                --unfused --no-check --runs "${RUNS:-100}" --warmup 10 --tuning-cache "$c" \
                --json "$OUT/bench-$f-$tag.json" >"$OUT/logs/bench-$f-$tag.txt" 2>"$OUT/logs/bench-$f-$tag.log"
            echo "== $f $tag"; cat "$OUT/logs/bench-$f-$tag.txt"
            timeout 120 "$BIN/morf-bench" "examples/${f}_f32.mlir" --sizes M=576000,N=384 \
                --unfused --no-check --runs "${RUNS:-100}" --warmup 10 --tuning-cache "$c" \
                --json "$OUT/bench-${f}_f32-$tag.json" >"$OUT/logs/bench-${f}_f32-$tag.txt" 2>"$OUT/logs/bench-${f}_f32-$tag.log"
            echo "== ${f}_f32 $tag"; cat "$OUT/logs/bench-${f}_f32-$tag.txt"
        done
    done
    if [ -f "$BIN/peers/anchors.py" ]; then
        for op in rms ln; do
            echo "== Inductor default, $op"
            (cd "$BIN/peers" && ONLY_INDUCTOR=1 timeout 200 python3 anchors.py "$op") >"$OUT/peers-$op.txt" 2>"$OUT/logs/peers-$op.log"
            cat "$OUT/peers-$op.txt"
        done
    fi
    ;;
evidence)
    # Stops starting new items after $DEADLINE seconds (the rest is listed as not run).
    DEADLINE=${DEADLINE:-420}
    t0=$SECONDS
    late() { if [ $((SECONDS - t0)) -gt "$DEADLINE" ]; then echo "SKIPPED (deadline): $*"; return 0; fi; return 1; }
    NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
    SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
    san() { # tool file sizes
        late "$1 $2 $3" && return
        if timeout 90 "$SAN" --tool "$1" --error-exitcode 9 "$BIN/morf-run" "examples/$2.mlir" --device gpu \
            --random "$3" --tuning-cache "$CACHE" --output-dir "$OUT/tmp" >"$OUT/logs/san.log" 2>&1; then
            echo "clean $1 $2 $3: $(grep -o 'ERROR SUMMARY: [0-9]* error[s]*\|RACECHECK SUMMARY: [0-9]* hazard[^ ]* [^ ]*' "$OUT/logs/san.log" | head -1)"
        else
            echo "FAIL  $1 $2 $3 (rc=$?)"; tail -12 "$OUT/logs/san.log"
        fi
    }
    check() { # file sizes
        late "check $1 $2" && return
        if timeout 120 "$BIN/morf-run" "examples/$1.mlir" --device gpu --check --random "$2" --tuning-cache "$CACHE" \
            --output-dir "$OUT/tmp" -v >"$OUT/logs/odd.log" 2>&1; then
            echo "ok    check $1 $2: $(grep -o 'rel_err=[^ ]*' "$OUT/logs/odd.log" | tr '\n' ' ') $(grep -o 'tuned schedule for bucket [^:]*\|no tuning entry' "$OUT/logs/odd.log" | head -1)"
        else
            echo "FAIL  check $1 $2"; tail -5 "$OUT/logs/odd.log"
        fi
    }
    for f in rmsnorm_bwd layernorm_bwd; do
        for s in $ROWS_BF16; do
            late "ncu $f $s" && continue
            log="$OUT/logs/ncu-$f-${s//[=,]/_}.txt"
            timeout 90 "$NCU" --clock-control none --metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum.per_second,gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__block_size \
                "$BIN/morf-run" "examples/$f.mlir" --device gpu --random "$s" --tuning-cache "$CACHE" --output-dir "$OUT/tmp" >"$log" 2>&1
            echo "== ncu $f $s"; grep -E "_k[0-9]|dram__|gpu__time|registers|grid_size|block_size" "$log" | head -24
        done
    done
    for f in rmsnorm_bwd layernorm_bwd; do
        for s in M=1,N=384 M=7,N=384 M=4096,N=1 M=4096,N=100 M=4096,N=5120 M=2048,N=12288; do
            san memcheck $f $s; san racecheck $f $s; check $f $s
        done
    done
    for f in rmsnorm_bwd layernorm_bwd; do
        for s in $ROWS_BF16; do san memcheck $f $s; san racecheck $f $s; done
        san memcheck ${f}_f32 M=576000,N=384; san racecheck ${f}_f32 M=576000,N=384
        san memcheck $f M=1000003,N=384; san racecheck $f M=1000003,N=384; check $f M=1000003,N=384
    done
    rm -rf "$OUT/tmp"
    ;;
spans)
    hints=size-hints=M=524288,N=384
    for f in rmsnorm_bwd layernorm_bwd rmsnorm_bwd_f32 layernorm_bwd_f32; do
        for spans in "" "hint-spans=M=2"; do
            tag=${spans:+spans}
            timeout "$LIMIT" "$BIN/morf-bench" "examples/$f.mlir" --sizes M=524288,N=384 --sizes M=576000,N=384 \
                --sizes M=786432,N=384 --sizes M=1000003,N=384 --tuning-cache none --runs "${RUNS:-100}" --warmup 10 \
                --fused-pipeline "$(gpu_pipeline "$hints $spans" "$hints")" --json "$OUT/spans-$f-${tag:-hint}.json" \
                >"$OUT/logs/spans-$f-${tag:-hint}.txt" 2>"$OUT/logs/spans-$f-${tag:-hint}.log"
            echo "== $f ${tag:-hint only}"; cat "$OUT/logs/spans-$f-${tag:-hint}.txt"
        done
    done
    ;;
lanes)
    for f in rmsnorm_bwd layernorm_bwd; do
        for tpr in 32 16 8; do
            timeout "$LIMIT" "$BIN/morf-bench" "examples/$f.mlir" --sizes M=576000,N=384 --tuning-cache none \
                --runs "${RUNS:-100}" --warmup 10 --fused-pipeline "$(gpu_pipeline splits=256 "staged-rows=4 threads-per-row=$tpr")" \
                >"$OUT/logs/lanes-$f-$tpr.txt" 2>"$OUT/logs/lanes-$f-$tpr.log"
            echo "== $f 576000x384 threads-per-row=$tpr: $(grep -E '^\| [0-9]' "$OUT/logs/lanes-$f-$tpr.txt")"
        done
        for s in M=8388608,N=2 M=131072,N=256 M=1000000,N=256 M=32768,N=768 M=33791,N=768; do
            for tpr in 0 32; do
                timeout "$LIMIT" "$BIN/morf-bench" "examples/$f.mlir" --sizes "$s" --tuning-cache none --unfused \
                    --runs "${RUNS:-100}" --warmup 10 --fused-pipeline "$(gpu_pipeline "" "threads-per-row=$tpr")" \
                    >"$OUT/logs/lanes-$f-${s//[=,]/_}-$tpr.txt" 2>"$OUT/logs/lanes-$f-${s//[=,]/_}-$tpr.log"
                echo "== $f $s threads-per-row=$tpr (0: heuristic): $(grep -E '^\| [0-9]' "$OUT/logs/lanes-$f-${s//[=,]/_}-$tpr.txt")"
            done
        done
    done
    ;;
esac
