# Issue 11, forty-fourth session, call 3: where a short-row call's time goes on the GPU's
# timeline. Nsight Systems traces morf-bench's timed loop (the L2-flush memset, then the
# call, each call) at RMSNorm backward 65536 x 200 and LayerNorm backward 100003 x 100 (the
# heuristic's cooperative kernel, and final=launch), with the copy of the same bytes in the
# same process; the GPU trace says how long each kernel ran and how long the GPU sat between
# the flush's end and the kernel's start.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s44/call3.sh
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none} $($NSYS --version 2>&1 | head -1)" >> "$S"
trace() {  # label example sizes lower-opts
  local l=$1 f=$2 sz=$3 lo=$4
  [ "$(left)" -lt 40 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  timeout 90 "$NSYS" profile -o "$OUT/logs/$l" --trace=cuda --sample=none --cpuctxsw=none --force-overwrite=true \
    "$B/morf-bench" "$f" --tuning-cache none --fused-pipeline "$(pipeline partials=resident "$lo")" --sizes "$sz" \
    --runs 30 --warmup 5 --no-check > "$OUT/logs/$l.txt" 2>&1
  echo "$l rc=$?: $(summary_of "$OUT/logs/$l.txt")" >> "$S"
  timeout 60 "$NSYS" stats --report cuda_gpu_trace --format csv --output "$OUT/logs/$l" "$OUT/logs/$l.nsys-rep" \
    > "$OUT/logs/$l-stats.txt" 2>&1
  timeout 60 "$NSYS" stats --report cuda_api_trace --format csv --output "$OUT/logs/$l" "$OUT/logs/$l.nsys-rep" \
    >> "$OUT/logs/$l-stats.txt" 2>&1
  rm -f "$OUT/logs/$l.nsys-rep" "$OUT/logs/$l.sqlite"
  ls "$OUT/logs" | grep "^$l" | tr '\n' ' ' >> "$S"; echo >> "$S"
}
if [ -n "$NSYS" ]; then
  trace rms200 examples/rmsnorm_bwd.mlir M=65536,N=200 ""
  trace rms200-launch examples/rmsnorm_bwd.mlir M=65536,N=200 "final=launch"
  trace ln100 examples/layernorm_bwd.mlir M=100003,N=100 ""
fi
finish
