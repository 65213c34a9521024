# Issue 11, seventeenth session, call 2: the final reduction's lanes a row segment swept
# (final-lanes; 0 = the latency model) with the final in its own launch, per kernel; the
# cached LayerNorm 32768 x 4096 merged kernel with the grid-hint fix against the old binary;
# Inductor's defaults on the table's rows.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 545 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=$B/h200.json
diag() { # label example sizes lower-opts
  local l=$1 e=$2 sz=$3 lo=$4
  [ $(left) -lt 150 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 40 $B/morf-bench examples/$e.mlir --tuning-cache none --fused-pipeline \
    "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{final=launch $lo})" \
    --sizes $sz --warmup 10 --runs 100 --no-check --per-kernel --json $OUT/json/$l.json > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'launch 1 @[a-z_0-9]* (grid [0-9]*[^)]*): median [0-9.]* us' $OUT/logs/$l.txt | sed 's/shared [0-9]*//' | tr '\n' ';')" >> $S
}
for cfg in rmsnorm_bwd:M=16384,N=8192 layernorm_bwd:M=16384,N=8192 rmsnorm_bwd:M=32768,N=4096 layernorm_bwd:M=32768,N=4096 \
    rmsnorm_bwd:M=65536,N=1024 layernorm_bwd:M=65536,N=1024 rmsnorm_bwd:M=576000,N=384 layernorm_bwd:M=576000,N=384 \
    rmsnorm_bwd:M=32768,N=768 layernorm_bwd:M=4096,N=16384; do
  e=${cfg%%:*}; sz=${cfg#*:}
  for fl in 0 2 4 8 16 32; do diag lanes-$e-$sz-$fl $e $sz "final-lanes=$fl"; done
done
bench() { # label binary-dir example sizes
  local l=$1 bd=$2 e=$3 sz=$4
  [ $(left) -lt 110 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 40 $bd/morf-bench examples/$e.mlir --tuning-cache $C --sizes $sz --warmup 10 --runs 100 --no-check --json $OUT/json/$l.json > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | tr '\n' ' ') $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
for r in 1 2; do
  bench ln-32768x4096-old-$r $B/old layernorm_bwd M=32768,N=4096
  bench ln-32768x4096-new-$r $B layernorm_bwd M=32768,N=4096
done
for op in rms ln; do
  [ $(left) -lt 60 ] && { echo "peers $op: skipped (deadline)" >> $S; continue; }
  (cd $B/peers && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16 \
    timeout $(( $(left) - 10 )) python3 anchors.py $op) > $OUT/logs/peers-$op.txt 2>&1
  echo "== Inductor default $op rc=$? t=$(( $(date +%s) - T0 ))" >> $S
  grep -E "copy bandwidth|inductor_mix" $OUT/logs/peers-$op.txt | grep -v kernels >> $S
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
