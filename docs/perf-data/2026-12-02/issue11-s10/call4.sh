#!/usr/bin/env bash
# Session 10 call 4: compute-sanitizer on the staged-rows-with-shared-partials schedules
# (the tuned entries of call 3, copied to the bucket M~2^12 so that M=5000 runs them).
set -u
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for fs in rmsnorm_bwd:M=5000,N=384 layernorm_bwd:M=5000,N=384 rmsnorm_bwd:M=4099,N=1024 layernorm_bwd:M=4099,N=1024; do
  f=${fs%%:*}; s=${fs#*:}
  .device-bin/morf-run examples/$f.mlir --device gpu --check --random $s --tuning-cache .device-bin/san-cache.json --output-dir /tmp/o -v 2>&1 | grep -E "tuned schedule|no tuning|check result" | tr '\n' ' '; echo
  for tool in memcheck racecheck; do
    timeout 60 $SAN --tool $tool --error-exitcode 9 .device-bin/morf-run examples/$f.mlir --device gpu --random $s --tuning-cache .device-bin/san-cache.json --output-dir /tmp/o > /tmp/san.log 2>&1
    echo "$tool $f $s rc=$? $(grep -o 'ERROR SUMMARY: [0-9]* error[s]*\|RACECHECK SUMMARY: [0-9]* hazard[^ ]* [^ ]*' /tmp/san.log | head -1)"
  done
done
