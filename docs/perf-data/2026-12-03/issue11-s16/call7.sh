# Issue 11, sixteenth session, call 7: the heuristic's shared accumulators for a warp per row
# with one column partial (new binary) against the register accumulators (old: this session's
# HEAD before the rule), defaults with the committed cache, alternating.
set -u
T0=$(date +%s)
left() { echo $(( 140 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs
S=$OUT/summary.txt
: > $S
run() { # label binary example sizes
  [ $(left) -lt 8 ] && { echo "$1: skipped (deadline)" >> $S; return; }
  timeout 20 $2 examples/$3.mlir --sizes $4 --warmup 5 --runs 50 --no-check > $OUT/logs/$1.txt 2>&1
  echo "$1 rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$1.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$1.txt | awk -F'|' '{print $8}')" >> $S
}
for spec in rmsnorm_bwd:M=32768,N=768 tanh_bwd_bias:M=65536,N=1024 softmax_fwd_colsum:M=65536,N=1024 gelu_bwd_bias:M=65536,N=1024 colmax_rowsum:M=65536,N=1024 rmsnorm_bwd:M=262144,N=768 softmax_fwd_colsum:M=576000,N=384 gelu_bwd_bias:M=32768,N=768; do
  e=${spec%%:*}; sz=${spec#*:}
  run $e-$sz-old .device-bin/old/morf-bench $e $sz
  run $e-$sz-new .device-bin/morf-bench $e $sz
done
cd $OUT && tar czf raw.tgz logs && rm -rf logs; cd - > /dev/null
cat $S
