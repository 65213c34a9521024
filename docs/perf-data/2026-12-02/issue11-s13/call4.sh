set -u
B=.device-bin
pipe() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions$1,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"; }
mkdir -p $OUT/logs $OUT/json
for c in fixed:'{partials=0}' resident:'{partials=resident}' k128:'{partials=128}' k132:'{partials=132}'; do
  l=${c%%:*}; o=${c#*:}
  for pk in "" "--per-kernel"; do
    timeout 40 $B/morf-bench examples/layernorm_bwd.mlir --tuning-cache none --fused-pipeline "$(pipe "$o")" --sizes M=4096,N=16384 --no-check $pk \
      --runs 100 --warmup 10 --json $OUT/json/$l$pk.json > $OUT/logs/$l$pk.txt 2>&1
    echo "$l $pk: $(grep -o 'median [0-9.]* us' $OUT/logs/$l$pk.txt | head -1) $(grep -i 'k0\b\|_k0' $OUT/logs/$l$pk.txt | grep -o '[0-9.]* us' | head -2 | tr '\n' ' ')"
  done
done
