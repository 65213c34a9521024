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
# (`source_page`, as it ran here, is now a helper of tools/scripts/device-call.sh.)
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
