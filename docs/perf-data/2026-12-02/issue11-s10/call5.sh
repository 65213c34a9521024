#!/usr/bin/env bash
# Session 10 call 5: the examples under 80% at 65536x1024 (3-D: 64x1024x1024), tuned over
# splits, rows-in-flight and staged-rows (staged rows beside shared partials are new).
set -u
t0=$SECONDS
C=/tmp/h.json; cp .device-bin/h200-s10b.json $C; chmod u+w $C
for f in colmax_rowsum row_col_stats softmax_fwd_colsum gelu_bwd_bias reduce3d tanh_bwd_bias; do
  s=M=65536,N=1024; grep -q '"B"' examples/$f.mlir && s=B=64,M=1024,N=1024
  if [ $((SECONDS-t0)) -gt 170 ]; then echo "SKIPPED $f"; continue; fi
  timeout 45 .device-bin/morf-tune examples/$f.mlir --sizes $s --cache $C --knobs splits,rows-in-flight,staged-rows \
    --rounds 1 --max-trials 10 --runs 20 --final-runs 40 > /tmp/t.txt 2>/tmp/t.log
  echo "$f rc=$? t=$((SECONDS-t0)) $(grep -E '^\| [A-Z]' /tmp/t.txt | tail -1)"
done
cp $C $OUT/h200.json
