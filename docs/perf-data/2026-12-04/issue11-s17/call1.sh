# Issue 11, seventeenth session, call 1: the final reduction's vector form (this session's
# binary) against the sixteenth session's (.device-bin/old), alternating, with the committed
# cache; the final reduction in its own launch, per kernel, both binaries; fp64 checks.
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
ab rms-16384x8192 rmsnorm_bwd M=16384,N=8192 2
ab ln-16384x8192 layernorm_bwd M=16384,N=8192 2
ab rms-32768x4096 rmsnorm_bwd M=32768,N=4096 2
ab ln-32768x4096 layernorm_bwd M=32768,N=4096 2
ab rms-65536x1024 rmsnorm_bwd M=65536,N=1024 2
ab ln-65536x1024 layernorm_bwd M=65536,N=1024 2
ab rms-576000x384 rmsnorm_bwd M=576000,N=384 1
ab ln-576000x384 layernorm_bwd M=576000,N=384 1
# The final reduction in its own launch (final=launch), per kernel: the heuristic's schedule.
diag() { # label binary-dir example sizes
  local l=$1 bd=$2 e=$3 sz=$4
  [ $(left) -lt 50 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 40 $bd/morf-bench examples/$e.mlir --tuning-cache none --fused-pipeline \
    "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{final=launch})" \
    --sizes $sz --warmup 10 --runs 100 --no-check --per-kernel --json $OUT/json/$l.json > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -o 'launch [0-9]* @[a-z_0-9]* (grid [0-9]*[^)]*): median [0-9.]* us' $OUT/logs/$l.txt | sed 's/shared [0-9]*//' | tr '\n' ';')" >> $S
}
for sz in M=16384,N=8192 M=65536,N=1024; do
  diag rms-launch-old-$sz $B/old rmsnorm_bwd $sz
  diag rms-launch-new-$sz $B rmsnorm_bwd $sz
done
diag ln-launch-old-M=32768,N=4096 $B/old layernorm_bwd M=32768,N=4096
diag ln-launch-new-M=32768,N=4096 $B layernorm_bwd M=32768,N=4096
# fp64 checks of the new kernels (every output against the fp64 interpreter), the vector
# form and (N = 1001) the scalar form.
bench chk-rms-16384x8192 $B rmsnorm_bwd M=16384,N=8192 60 --runs 20
bench chk-ln-65536x1024 $B layernorm_bwd M=65536,N=1024 60 --runs 20
bench chk-ln-576000x384 $B layernorm_bwd M=576000,N=384 90 --runs 20
bench chk-ln-4099x1000 $B layernorm_bwd M=4099,N=1000 40 --runs 20
bench chk-rms-3000x1001 $B rmsnorm_bwd M=3000,N=1001 40 --runs 20
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
