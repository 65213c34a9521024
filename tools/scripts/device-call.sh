# Helpers for a device call script (docs/perf-data/DATE/SESSION/callN.sh), sourced by it:
#
#   DEADLINE=300 . tools/scripts/device-call.sh
#   bench_pipeline r1-ln16k-ring3 examples/layernorm_bwd.mlir M=4096,N=16384 "partials=resident" "staged-rows=3" --runs 100
#   bench_cache    r1-ln16k-cache examples/layernorm_bwd.mlir M=4096,N=16384 --runs 100
#   ptx_variants   rms64k examples/rmsnorm_bwd.mlir M=65536,N=1024 ptx/rms64k "base cs" cs 2 --runs 100
#   ab_pipeline    stream colmax_rowsum.mlir M=65536,N=1024 "" "stream-loads=false" "" 2 --runs 100
#   ab_binaries    relief examples/rmsnorm_bwd_f32.mlir M=4096,N=16384 "partials=resident" "" 2 --runs 100
#   ab_list        --runs 100 < list          (lines "example sizes": ab_binaries of each)
#   ab_text        unf-ln examples/layernorm_bwd.mlir M=65536,N=200 "builtin.module(...)" 1 --runs 100
#   table_with_inductor                       (the table rows, cache copy, and Inductor's default)
#   bench_text     mapped examples/layernorm_fwd.mlir M=65536,N=1024 "builtin.module(...,loop-map,lower-loop-to-gpu)" --runs 100
#   tune           layernorm_bwd M=4096,N=16384 120 --warm-start --max-trials 40
#   sanitize       ln16k layernorm_bwd M=1031,N=16384 M=4096,N=16384
#   sanitize_text  packed examples/rmsnorm_bwd.mlir M=7,N=2 "builtin.module(...,lower-loop-to-gpu{packed-rows=8 ...})"
#   determinism    ln16k layernorm_bwd M=4096,N=16384 10
#   ncu_profile    gelu100 examples/gelu_bwd_bias.mlir gelu_bwd_bias_k0 M=327680,N=100
#   source_page    src-rms200 examples/rmsnorm_bwd.mlir M=65536,N=200 "rows-in-flight=2"
#   survey         rms rmsnorm_bwd --sizes M=65536,N=1024 --sizes M=576000,N=384 --runs 50 --no-check
#   kernels        unf-rms200        (after a bench_text ... --per-kernel of that label)
#   finish
#
# Run from the repository root on the device machine, with `$OUT` set (the run tool's output
# folder) and the release binaries and the cache copy in `.device-bin/` (carried). Every helper
# appends one line per result to `$OUT/summary.txt` and keeps its raw log and JSON under
# `$OUT/logs` and `$OUT/json`; `finish` packs those into `$OUT/raw.tgz` and prints the summary.
# A helper that would run past `DEADLINE` seconds from sourcing is skipped, and says so.
# (The scripts of the twenty-first session and before define these helpers inline, as they ran.)

set -u
B=${B:-.device-bin}
C=${C:-/tmp/h200.json}
# (Copied, so that `DEADLINE=300 . tools/scripts/device-call.sh` holds after the sourcing.)
CALL_DEADLINE=${DEADLINE:-540}
T0=$(date +%s)
S=$OUT/summary.txt
mkdir -p "$OUT/logs" "$OUT/json"
: > "$S"
cp "$B/h200.json" "$C" && chmod u+w "$C"

# Seconds left before DEADLINE.
left() { echo $(( CALL_DEADLINE - ($(date +%s) - T0) )); }

# The `gpu` pipeline with fusion options $1 and lowering options $2.
pipeline() {
  echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"
}

# morf-bench of a textual pipeline, no tuning cache: label file sizes fuse-opts lower-opts extra...
bench_pipeline() {
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ "$(left)" -lt 40 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  timeout 90 "$B/morf-bench" "$f" --tuning-cache none --fused-pipeline "$(pipeline "$fo" "$lo")" --sizes "$sz" \
    --warmup 10 --json "$OUT/json/$l.json" "$@" > "$OUT/logs/$l.txt" 2>&1
  echo "$l rc=$? [$lo $*]: $(summary_of "$OUT/logs/$l.txt")" >> "$S"
}

# The per-kernel lines of a `--per-kernel` log ($OUT/logs/LABEL.txt) into the summary, one a
# launch (index, kernel, grid, median, % of its own floor): label
kernels() {
  grep -E '^\| [0-9] ' "$OUT/logs/$1.txt" | awk -F'|' -v l="$1" '{printf "  %s k%s %s grid %s: %s us %s\n", l, $2, $3, $4, $9, $10}' | tr -s ' ' >> "$S"
}

# morf-bench of a whole pipeline text (any passes, e.g. loop-map before the lowering), no
# tuning cache: label file sizes pipeline-text extra...
bench_text() {
  local l=$1 f=$2 sz=$3 p=$4; shift 4
  [ "$(left)" -lt 40 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  timeout 90 "$B/morf-bench" "$f" --tuning-cache none --fused-pipeline "$p" --sizes "$sz" \
    --warmup 10 --json "$OUT/json/$l.json" "$@" > "$OUT/logs/$l.txt" 2>&1
  echo "$l rc=$? [$p $*]: $(summary_of "$OUT/logs/$l.txt")" >> "$S"
}

# An A/B in one binary: bench_pipeline with lowering options A, then B, ROUNDS times over,
# alternating (labels LABEL-aN and LABEL-bN): label file sizes fuse-opts lower-opts-A
# lower-opts-B rounds extra...
ab_pipeline() {
  local l=$1 f=$2 sz=$3 fo=$4 a=$5 b=$6 r=$7 i; shift 7
  for i in $(seq 1 "$r"); do
    bench_pipeline "$l-a$i" "$f" "$sz" "$fo" "$a" "$@"
    bench_pipeline "$l-b$i" "$f" "$sz" "$fo" "$b" "$@"
  done
}

# An A/B of two builds: bench_pipeline with the binaries of $OLD (default .device-bin/old: an
# earlier commit's release build) as LABEL-oN, then this build's as LABEL-nN, ROUNDS times over:
# label file sizes fuse-opts lower-opts rounds extra... Skipped, and said, without $OLD.
ab_binaries() {
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5 r=$6; shift 6
  ab_rounds bench_pipeline "$l" "$r" "$f" "$sz" "$fo" "$lo" "$@"
}

# An A/B of two builds over a whole pipeline text (bench_text; the `gpu-unfused` pipeline, say):
# label file sizes pipeline-text rounds extra... ($OLD as in ab_binaries).
ab_text() {
  local l=$1 f=$2 sz=$3 p=$4 r=$5; shift 5
  ab_rounds bench_text "$l" "$r" "$f" "$sz" "$p" "$@"
}

# The rounds of ab_binaries and ab_text: bench helper, label, rounds, the helper's arguments
# after its label. Skipped, and said, without $OLD.
ab_rounds() {
  local fn=$1 l=$2 r=$3 i old=${OLD:-.device-bin/old}; shift 3
  [ -x "$old/morf-bench" ] || { echo "$l: skipped (no $old/morf-bench)" >> "$S"; return; }
  for i in $(seq 1 "$r"); do
    B=$old "$fn" "$l-o$i" "$@"
    "$fn" "$l-n$i" "$@"
  done
}

# ab_binaries over a list on stdin, one "example sizes" a line (examples/EXAMPLE.mlir, the
# `gpu` pipeline's fusion options, one round, checked): extra...
#   ab_list --runs 100 <<'LIST'
#   row_col_stats M=5120,N=5120
#   LIST
ab_list() {
  local ex sz
  while read -r ex sz; do
    [ -n "$ex" ] && ab_binaries "$ex-${sz//[=,]/_}" "examples/$ex.mlir" "$sz" partials=resident "" 1 "$@"
  done
}

# The table rows of issue 11 (RMSNorm and LayerNorm backward at the five bf16 shapes) with the
# cache copy, unchecked, then Inductor's default from .device-bin/peers/anchors.py
# (`ONLY_INDUCTOR=1`) in the same call, each peer op skipped under 110 s left.
table_with_inductor() {
  local ex op sh=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16,4096x16384:bf16
  for ex in rmsnorm_bwd layernorm_bwd; do
    timeout 90 "$B/morf-bench" "examples/$ex.mlir" --tuning-cache "$C" --no-check --runs 100 --warmup 10 \
      --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=4096,N=16384 \
      --json "$OUT/json/table-$ex.json" > "$OUT/logs/table-$ex.txt" 2> "$OUT/logs/table-$ex.log"
    echo "== $ex rc=$? t=$(( $(date +%s) - T0 )) $(grep -o 'copy: .*' "$OUT/logs/table-$ex.log" | head -1)" >> "$S"
    grep -E '^\| [0-9]' "$OUT/logs/table-$ex.txt" >> "$S"
  done
  for op in rms ln; do
    [ "$(left)" -lt 110 ] && { echo "peers $op: skipped (deadline)" >> "$S"; continue; }
    (cd "$B/peers" && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=$sh timeout 110 python3 anchors.py $op) > "$OUT/logs/peers-$op.txt" 2>&1
    echo "== Inductor default $op rc=$? t=$(( $(date +%s) - T0 ))" >> "$S"
    grep -E "copy bandwidth|inductor_mix" "$OUT/logs/peers-$op.txt" | grep -v kernels >> "$S"
  done
}

# morf-bench with the cache copy: label file sizes extra...
bench_cache() {
  local l=$1 f=$2 sz=$3; shift 3
  [ "$(left)" -lt 40 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  timeout 90 "$B/morf-bench" "$f" --tuning-cache "$C" --sizes "$sz" --warmup 10 --json "$OUT/json/$l.json" "$@" \
    > "$OUT/logs/$l.txt" 2>&1
  echo "$l rc=$? [cache]: $(summary_of "$OUT/logs/$l.txt")" >> "$S"
}

# Hand-rewritten PTX variants through `morf-bench --ptx`, with the cache copy, ROUNDS times over,
# alternating (labels LABEL-VARIANT-ROUND): PREFIX.ptx is the base, PREFIX.V.ptx variant V; only
# round 1's variant CHECKED (`-` for none) is checked against fp64, the rest run --no-check.
#   ptx_variants label file sizes prefix "base cs stcs" checked rounds extra...
ptx_variants() {
  local l=$1 f=$2 sz=$3 pre=$4 vs=$5 ckv=$6 r=$7 round v p ck; shift 7
  for round in $(seq 1 "$r"); do
    for v in $vs; do
      p=$pre.ptx; [ "$v" != base ] && p=$pre.$v.ptx
      ck=--no-check; [ "$round" = 1 ] && [ "$v" = "$ckv" ] && ck=""
      bench_cache "$l-$v-$round" "$f" "$sz" --ptx "$p" $ck "$@"
    done
  done
}

# The median, % of floor and check lines of a morf-bench log.
summary_of() {
  echo "$(grep -o 'median [0-9.]* us' "$1" | head -1) $(grep -E '^\| [0-9]' "$1" | awk -F'|' '{print $8}') $(grep -o 'rel_err=[^ ]* ([^)]*) [a-z]*' "$1" | tr '\n' ' ')"
}

# morf-tune into the cache copy (one round, 0.5% gain, fp64 check): example sizes timeout extra...
# The cache copy comes back as $OUT/h200.json after each run.
tune() {
  local e=$1 s=$2 to=$3 l=tune-$1-${2//[=,]/_}; shift 3
  [ "$(left)" -lt $(( to + 5 )) ] && to=$(( $(left) - 5 ))
  [ "$to" -lt 20 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  timeout "$to" "$B/morf-tune" "examples/$e.mlir" --sizes "$s" --cache "$C" --rounds 1 --min-gain 0.005 \
    --runs 30 --final-runs 50 --json "$OUT/json/$l.json" "$@" > "$OUT/logs/$l.txt" 2> "$OUT/logs/$l.log"
  echo "$l rc=$? t=$(( $(date +%s) - T0 )): $(grep -E '^\| M' "$OUT/logs/$l.txt" | tail -1)" >> "$S"
  cp "$C" "$OUT/h200.json"
}

# compute-sanitizer memcheck and racecheck of the cached schedule: label example sizes bucket-sizes
sanitize() {
  local l=$1 ex=$2 sz=$3 hint=$4
  "$B/morf-opt" "examples/$ex.mlir" --pipeline gpu --size-hints "$hint" --tuning-cache "$C" -o "$OUT/logs/$l.mlir" \
    2>> "$OUT/logs/opt.txt" || { echo "$l: morf-opt failed" >> "$S"; return; }
  sanitize_module "$l" "$sz"
}

# compute-sanitizer memcheck and racecheck of a whole pipeline text, no cache: label file sizes pipeline-text
sanitize_text() {
  local l=$1 f=$2 sz=$3 p=$4
  "$B/morf-opt" "$f" --pass-pipeline "$p" -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt" \
    || { echo "$l: morf-opt failed" >> "$S"; return; }
  sanitize_module "$l" "$sz"
}

# The first kernel schedule of the lowered module $OUT/logs/LABEL.mlir, into the summary: label
schedule_line() {
  grep -o 'morf.schedule = "[^"]*"' "$OUT/logs/$1.mlir" | head -1 | sed "s/^/$1: /" >> "$S"
}

# memcheck and racecheck of the lowered module $OUT/logs/LABEL.mlir at sizes: label sizes
sanitize_module() {
  local l=$1 sz=$2 tool
  schedule_line "$l"
  for tool in memcheck racecheck; do
    [ "$(left)" -lt 40 ] && { echo "$l $tool: skipped (deadline)" >> "$S"; continue; }
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$B/morf-run" "$OUT/logs/$l.mlir" --device gpu \
      --random "$sz" --output-dir "/tmp/o-$l" > "$OUT/logs/san-$l-$tool.txt" 2>&1
    echo "$l $tool rc=$?: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$OUT/logs/san-$l-$tool.txt" | head -1)" >> "$S"
  done
}

# Outputs of N fresh processes with the cache copy, compared bitwise: label example sizes N
determinism() {
  local l=$1 ex=$2 sz=$3 n=$4 i r
  for i in $(seq 1 "$n"); do
    [ "$(left)" -lt 10 ] && break
    timeout 30 "$B/morf-run" "examples/$ex.mlir" --device gpu --tuning-cache "$C" -v --random "$sz" --seed 7 \
      --output-dir "/tmp/det-$l-$i" > "$OUT/logs/det-$l-$i.txt" 2>&1
  done
  grep -h -o 'tuned schedule.*' "$OUT/logs/det-$l-1.txt" 2>/dev/null | head -1 >> "$S"
  for r in $(ls "/tmp/det-$l-1/" 2>/dev/null | grep -v result0); do
    echo "determinism $l $r: $(ls /tmp/det-"$l"-*/"$r" 2>/dev/null | wc -l) runs, $(md5sum /tmp/det-"$l"-*/"$r" 2>/dev/null | awk '{print $1}' | sort -u | wc -l) distinct" >> "$S"
  done
}

# Nsight Compute of one kernel of the `gpu` pipeline's module (no cache), or of a pipeline text
# when one is given: label file kernel-regex sizes [pipeline-text]. Clocks left alone
# (`--clock-control none`, as morf-bench runs); the sections that say where a memory-bound
# kernel's time goes; one summary line of the headline metrics, the full report in the logs.
ncu_profile() {
  local l=$1 f=$2 k=$3 sz=$4 p=${5:-}
  [ "$(left)" -lt 50 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  if [ -n "$p" ]; then
    "$B/morf-opt" "$f" --pass-pipeline "$p" --size-hints "$sz" -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt"
  else
    "$B/morf-opt" "$f" --pipeline gpu --size-hints "$sz" --tuning-cache none -o "$OUT/logs/$l.mlir" 2>> "$OUT/logs/opt.txt"
  fi || { echo "$l: morf-opt failed" >> "$S"; return; }
  schedule_line "$l"
  timeout 80 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    -k "regex:$k" --launch-count 1 "$B/morf-run" "$OUT/logs/$l.mlir" --device gpu --random "$sz" \
    --output-dir "/tmp/ncu-$l" > "$OUT/logs/ncu-$l.txt" 2>&1
  echo "ncu $l rc=$?: $(grep -E 'DRAM Throughput|Achieved Occupancy|Registers Per|Duration|Theoretical Occupancy|Issue Slots Busy|No Eligible|L2 Hit Rate|Grid Size|Block Limit Reg|Warp Cycles Per Issued' \
    "$OUT/logs/ncu-$l.txt" | tr -s ' ' | tr '\n' ';')" >> "$S"
}

# Nsight Compute's warp-state samples of a row kernel (`_k0`) per SASS instruction
# (`--page source --csv`, `$OUT/logs/LABEL-sass.csv`), lowered with `partials=resident` and
# lowering options LOWER: label file sizes lower-opts.
source_page() {
  local l=$1 f=$2 sz=$3 lo=$4
  [ "$(left)" -lt 60 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  "$B/morf-opt" "$f" --pass-pipeline "$(pipeline partials=resident "$lo")" --size-hints "$sz" -o "$OUT/logs/$l.mlir" \
    2>> "$OUT/logs/opt.txt" || { echo "$l: morf-opt failed" >> "$S"; return; }
  timeout 120 ncu --clock-control none --section WarpStateStats --section SourceCounters --section SpeedOfLight \
    -k "regex:_k0" --launch-count 1 -o "$OUT/logs/$l" "$B/morf-run" "$OUT/logs/$l.mlir" --device gpu --random "$sz" \
    --output-dir "/tmp/src-$l" > "$OUT/logs/$l-run.txt" 2>&1
  timeout 60 ncu -i "$OUT/logs/$l.ncu-rep" --page source --csv --print-source sass > "$OUT/logs/$l-sass.csv" 2>&1
  timeout 60 ncu -i "$OUT/logs/$l.ncu-rep" --page details > "$OUT/logs/$l-details.txt" 2>&1
  echo "$l: $(wc -l < "$OUT/logs/$l-sass.csv") SASS lines; $(grep -E 'Duration|DRAM Throughput' "$OUT/logs/$l-details.txt" | tr -s ' ' | tr '\n' ';')" >> "$S"
}

# The fused and the unfused program of an example, no tuning cache, each launch also timed on
# its own (`--per-kernel`: every kernel against the floor of its own buffers): label example
# extra... (the shapes as `--sizes` in extra). One summary line a shape: fused and unfused
# medians; the per-kernel tables stay in the log and the JSON.
survey() {
  local l=$1 ex=$2 to; shift 2
  [ "$(left)" -lt 40 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  to=$(( $(left) - 15 )); [ "$to" -gt 150 ] && to=150
  timeout "$to" "$B/morf-bench" "examples/$ex.mlir" --tuning-cache none --unfused --per-kernel --warmup 5 \
    --json "$OUT/json/$l.json" "$@" > "$OUT/logs/$l.txt" 2>&1
  echo "$l rc=$?: $(grep -E '^\| [0-9]' "$OUT/logs/$l.txt" | grep -v '^| [0-9]* |' | awk -F'|' '{printf "%s: %s / %s (%s); ", $2, $4, $5, $8}' | tr -s ' ')" >> "$S"
}

# Packs the raw logs and JSON into $OUT/raw.tgz and prints the summary.
finish() {
  (cd "$OUT" && tar czf raw.tgz logs json && rm -rf logs json)
  cat "$S"
}
