#!/usr/bin/env bash
# Asked staging rings on the GPU simulator: each example of a list at N = 1024-8192 (size
# hints M=65536), lowered with options that ask the largest rings (`staged-rows=8`, alone and
# with shared accumulators, CTAs of 1024, 16 lanes a row, the reload form), then run on the
# simulator at M = 3, which refuses a launch whose static and dynamic shared memory pass what a
# CTA may have (227 KiB), as the GPU does. Prints one line a case (`ok`, `OPTFAIL`, `RUNFAIL`)
# and a count. From the repository root:
#
#   bash tools/scripts/shared_room_sweep.sh [MORF_OPT] [MORF_RUN]
#
# (Forty-eighth session: 49 of the 192 cases over 227 KiB with the build before the cut, none
# after.)
set -u
opt=${1:-target/release/morf-opt}
run=${2:-target/release/morf-run}
ok=0 bad=0
for ex in rmsnorm_bwd rmsnorm_bwd_f32 layernorm_bwd layernorm_bwd_f32 logsoftmax_bwd_colsum softmax_fwd_colsum gelu_bwd_bias row_col_stats; do
  for n in 1024 2048 4096 8192; do
    for lo in "staged-rows=8" "shared-accs=true staged-rows=8" "threads=1024 staged-rows=8" \
      "threads-per-row=16 shared-accs=true staged-rows=8" "reload=true staged-rows=8" \
      "threads=1024 shared-accs=true staged-rows=8"; do
      t=$(mktemp -d)
      p="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=$n},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=$n $lo})"
      if ! "$opt" "examples/$ex.mlir" --pass-pipeline "$p" -o "$t/g.mlir" 2> "$t/e.txt"; then
        echo "OPTFAIL $ex $n [$lo]: $(head -1 "$t/e.txt")"; bad=$((bad + 1))
      elif ! timeout 120 "$run" "$t/g.mlir" --device sim --random "M=3,N=$n" --seed 1 > /dev/null 2> "$t/r.txt"; then
        echo "RUNFAIL $ex $n [$lo]: $(grep -m1 error "$t/r.txt")"; bad=$((bad + 1))
      else
        echo "ok $ex $n [$lo]"; ok=$((ok + 1))
      fi
      rm -rf "$t"
    done
  done
done
echo "shared_room_sweep: $ok ok, $bad failed"
[ "$bad" -eq 0 ]
