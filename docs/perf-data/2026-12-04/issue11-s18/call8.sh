# Issue 11, eighteenth session, call 8: the table with the cache of calls 5 and 7 (morf-tune, checked), and Inductor's
# defaults in the same call.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 330 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=$B/h200.json
bench() { # label file sizes...
  local l=$1 f=$2; shift 2
  [ $(left) -lt 100 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 90 $B/morf-bench $f "$@" --no-check --runs 100 --warmup 10 --tuning-cache $C --json $OUT/json/$l.json > $OUT/logs/$l.txt 2> $OUT/logs/$l.log
  echo "== $l rc=$? t=$(( $(date +%s) - T0 )) $(grep -o 'copy: .*' $OUT/logs/$l.log | head -1)" >> $S
  grep -E '^\| [0-9]' $OUT/logs/$l.txt >> $S
}
bench bench-rms examples/rmsnorm_bwd.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192
bench bench-rmsf examples/rmsnorm_bwd_f32.mlir --sizes M=576000,N=384
bench bench-lnf examples/layernorm_bwd_f32.mlir --sizes M=576000,N=384
bench bench-ln examples/layernorm_bwd.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192
for op in rms ln; do
  [ $(left) -lt 50 ] && { echo "peers $op: skipped (deadline)" >> $S; continue; }
  sh=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16; sh=576000x384:f32,$sh
  (cd $B/peers && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=$sh timeout $(( $(left) - 10 )) python3 anchors.py $op) > $OUT/logs/peers-$op.txt 2>&1
  echo "== Inductor default $op rc=$? t=$(( $(date +%s) - T0 ))" >> $S
  grep -E "copy bandwidth|inductor_mix" $OUT/logs/peers-$op.txt | grep -v kernels >> $S
done
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
