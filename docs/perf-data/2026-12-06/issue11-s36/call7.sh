# Issue 11, thirty-sixth session, call 7: the cost model prices flat partials as they run
# (fusion/cost.rs `flat_partials_waves`), so the bias gradients' split fills a wave of them:
# b7d5f46 (.device-bin/old) against this build, the `gpu` pipeline's options, checked.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s36/call7.sh
DEADLINE=${DEADLINE:-170} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for s in M=262144,N=100 M=100003,N=100 M=65536,N=200 M=131072,N=384; do
  for ex in gelu_bwd_bias tanh_bwd_bias; do
    ab_binaries $ex-${s//[=,]/_} examples/$ex.mlir $s partials=resident "" 1 --runs 100
  done
done
finish
