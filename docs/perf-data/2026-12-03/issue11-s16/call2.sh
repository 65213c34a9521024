# Issue 11, sixteenth session, call 2: batched row reductions and one barrier per block
# reduction (this session's binary) against the fifteenth session's (.device-bin/old),
# alternating, with the committed cache; then fp64 checks of the new kernels on the GPU.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 545 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=$B/h200.json
bench() { # label binary-dir example sizes timeout extra...
  local l=$1 bd=$2 e=$3 sz=$4 to=$5; shift 5
  [ $(left) -lt $(( to + 10 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout $to $bd/morf-bench examples/$e.mlir --tuning-cache $C --sizes $sz --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us\|check result[0-9]*: rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ') $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
ab() { # label example sizes rounds
  local r
  for r in $(seq 1 $4); do
    bench $1-old-$r $B/old $2 $3 40 --runs 100 --no-check
    bench $1-new-$r $B $2 $3 40 --runs 100 --no-check
  done
}
ab ln-16384x8192 layernorm_bwd M=16384,N=8192 2
ab ln-32768x4096 layernorm_bwd M=32768,N=4096 2
ab ln-65536x1024 layernorm_bwd M=65536,N=1024 2
ab ln-576000x384 layernorm_bwd M=576000,N=384 2
ab rms-16384x8192 rmsnorm_bwd M=16384,N=8192 2
ab rms-32768x4096 rmsnorm_bwd M=32768,N=4096 1
ab ln-4096x16384 layernorm_bwd M=4096,N=16384 2
ab ln-8192x32768 layernorm_bwd M=8192,N=32768 1
ab rcs-16384x8192 row_col_stats M=16384,N=8192 1
ab ln-f32-2048x32768 layernorm_bwd_f32 M=2048,N=32768 1
# Diagnostics: what a pointwise kernel with the same traffic reaches (add2: out = x + dy),
# and RMSNorm's dx without its column reduction (rownorm: no partials, no final reduction,
# no grid barrier), by default and with RMSNorm's launch at N = 8192 (1 CTA of 256 a SM,
# 4 rows staged); the small shapes' final reduction in its own launch, per kernel.
D=docs/perf-data/2026-12-03/issue11-s16/programs
diag() { # label file sizes pipeline-options timeout extra...
  local l=$1 f=$2 sz=$3 o=$4 to=$5 p; shift 5
  [ $(left) -lt $(( to + 10 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  if [ -z "$o" ]; then p=gpu; else p="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu$o)"; fi
  timeout $to $B/morf-bench $f --tuning-cache none --fused-pipeline "$p" --sizes $sz --warmup 10 --runs 100 --no-check \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'launch [0-9]* @[a-z_0-9]* (grid [0-9]*[^)]*): median [0-9.]* us' $OUT/logs/$l.txt | tr '\n' ';')" >> $S
}
for sz in M=16384,N=8192 M=32768,N=768; do diag add2-$sz $D/add2.mlir $sz "" 40; done
for sz in M=16384,N=8192 M=32768,N=4096 M=65536,N=1024 M=32768,N=768 M=131072,N=256; do diag rownorm-$sz $D/rownorm.mlir $sz "" 40; done
diag rownorm-8192-1cta $D/rownorm.mlir M=16384,N=8192 "{threads=256 staged-rows=4 min-ctas=1 grid=132}" 40
diag rms-8192-grid132 examples/rmsnorm_bwd.mlir M=16384,N=8192 "{grid=132}" 40
for sz in M=32768,N=768 M=131072,N=256; do
  diag rms-launch-$sz examples/rmsnorm_bwd.mlir $sz "{final=launch}" 40 --per-kernel
  diag ln-launch-$sz examples/layernorm_bwd.mlir $sz "{final=launch}" 40 --per-kernel
done
# fp64 checks of the new kernels (morf-bench's check: every output against the fp64 interpreter).
bench chk-ln-16384x8192 $B layernorm_bwd M=16384,N=8192 90 --runs 20
bench chk-ln-4096x16384 $B layernorm_bwd M=4096,N=16384 60 --runs 20
bench chk-ln-8192x32768 $B layernorm_bwd M=8192,N=32768 90 --runs 20
bench chk-rcs-16384x8192 $B row_col_stats M=16384,N=8192 60 --runs 20
bench chk-ln-576000x384 $B layernorm_bwd M=576000,N=384 90 --runs 20
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
