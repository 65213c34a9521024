#!/usr/bin/env bash
# Session 10 call 2: what limits the 576000x384 bf16 rows (bytes in flight, tail, split).
set -u
P() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{splits=$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
one() { # label file sizes splits llopts
  local r
  r=$(timeout 60 .device-bin/morf-bench examples/$2.mlir --sizes $3 --tuning-cache none --no-check --runs 100 --warmup 10 --fused-pipeline "$(P $4 "$5")" 2>$OUT/err.log | grep -E '^\| [0-9]' | head -1)
  printf '%-8s %-14s %-18s S=%-5s %-34s %s\n' "$1" "$2" "$3" "$4" "$5" "$r" | tee -a $OUT/sweep.txt
}
for f in rmsnorm_bwd layernorm_bwd; do
  for cfg in "rows-in-flight=2" "rows-in-flight=1" "min-ctas=3 rows-in-flight=2" "min-ctas=3 rows-in-flight=1" "min-ctas=4 rows-in-flight=1" "threads=512 rows-in-flight=2" "threads=128 rows-in-flight=2" "threads=128 rows-in-flight=1" "min-ctas=none rows-in-flight=2"; do
    one A $f M=576000,N=384 256 "$cfg"
  done
  for S in 64 128 512; do one B $f M=576000,N=384 $S "rows-in-flight=2"; done
  for M in 524288 608256 540672; do one C $f M=$M,N=384 256 "rows-in-flight=2"; done
done
one D rmsnorm_bwd_f32 M=576000,N=384 256 "rows-in-flight=2"
one D rmsnorm_bwd_f32 M=576000,N=384 256 "rows-in-flight=1"
