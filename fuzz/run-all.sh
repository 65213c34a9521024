#!/usr/bin/env bash
# Runs every fuzz target in turn, one libFuzzer process at a time, nice'd, with the seed
# corpus and the dictionary. Usage:
#   fuzz/run-all.sh CHEAP_SECONDS EXPENSIVE_SECONDS [LOG_DIR] [TARGET...]
# The cheap targets (parse, parse_verify, roundtrip, npy) get CHEAP_SECONDS each, the
# pipelines and the interpreters EXPENSIVE_SECONDS. A run that finds a crash is restarted
# until the target's time is spent; crashing inputs go to fuzz/artifacts/<target>/. Each
# run's output goes to LOG_DIR/<target>.<n>.log and LOG_DIR/summary.txt gets one line per
# target with the executions summed over its runs (libFuzzer's number_of_executed_units).
# Build first: (cd fuzz && cargo +nightly fuzz build -O -s none -a), or set FUZZ_BIN to the
# folder of the binaries; fill the corpus: fuzz/seed.sh.
set -uo pipefail
cheap=${1:?cheap seconds}
expensive=${2:?expensive seconds}
logs=${3:-/tmp/fuzz-long}
shift $(( $# < 3 ? $# : 3 ))
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse parse_verify roundtrip npy fuse gpu gpu_unfused pass_pipeline interp)
cd "$(dirname "$0")"
bin=${FUZZ_BIN:-target/x86_64-unknown-linux-gnu/release}
mkdir -p "$logs"
for t in "${targets[@]}"; do
  case $t in parse|parse_verify|roundtrip|npy) budget=$cheap ;; *) budget=$expensive ;; esac
  mkdir -p "corpus/$t" "artifacts/$t"
  dict=(-dict=mlir.dict); [ "$t" = npy ] && dict=()
  end=$(( $(date +%s) + budget )); n=0; execs=0; crashes=0
  while left=$(( end - $(date +%s) )); [ "$left" -gt 5 ]; do
    log="$logs/$t.$n.log"
    nice -n 10 "$bin/$t" "corpus/$t" "${dict[@]}" -max_total_time="$left" -rss_limit_mb=2048 -timeout=10 \
      -max_len=65536 -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    e=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    [ -z "$e" ] && e=$(grep -aoE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    execs=$(( execs + ${e:-0} ))
    [ $rc -ne 0 ] && crashes=$(( crashes + 1 ))
    n=$(( n + 1 ))
  done
  echo "$t: $execs executions in $budget s over $n run(s), $crashes crash(es); artifacts in fuzz/artifacts/$t/" | tee -a "$logs/summary.txt"
done
