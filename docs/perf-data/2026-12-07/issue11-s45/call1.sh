# Issue 11, forty-fifth session, call 1: (a) the issue's table rows with the committed cache
# (unchecked) and Inductor's default in the same call, as the forty-fourth session's call 8,
# on an H200 only (where the cache's tuned schedules run); (b) the
# forty-fourth session's call 10: Nsight Compute's warp-state samples of the short-row
# kernels per SASS instruction (`--page source`), to split their stalls between the row
# loop, the grid barrier's wait and the final reduction.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s45/call1.sh
DEADLINE=${DEADLINE:-560} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
# The table rows only where the committed cache's entries apply (on an H100 the forty-fourth
# session's call 8 ran the cost model's schedules already).
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then table_with_inductor; fi
source_page() {  # label example sizes lower-opts
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
source_page src-rms200 examples/rmsnorm_bwd.mlir M=65536,N=200 ""
source_page src-rms200-rif2 examples/rmsnorm_bwd.mlir M=65536,N=200 "rows-in-flight=2 min-ctas=3"
source_page src-ln100 examples/layernorm_bwd.mlir M=100003,N=100 ""
source_page src-rms1024 examples/rmsnorm_bwd.mlir M=65536,N=1024 ""
# The copy kernel of the same bytes as RMSNorm backward at 65536 x 200 (39.3 MB read, 39.3
# written), under the same ncu sections: the in-kernel time a copy of these bytes takes.
[ "$(left)" -gt 60 ] && {
  timeout 120 ncu --clock-control none --section SpeedOfLight --section WarpStateStats -k "regex:copy" --launch-skip 3 \
    --launch-count 1 "$B/morf-bench" examples/rmsnorm_bwd.mlir --tuning-cache none --no-check --runs 5 --warmup 2 \
    --sizes M=65536,N=200 --copy-bytes 39321600 > "$OUT/logs/copy-ncu.txt" 2>&1
  echo "copy 39.3 MB: $(grep -E 'Duration|DRAM Throughput' "$OUT/logs/copy-ncu.txt" | tr -s ' ' | tr '\n' ';')" >> "$S"
}
finish
