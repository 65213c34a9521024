# Issue 11, forty-sixth session, call 4: the split-K partial's least rows as committed (16 for
# a body of 4 or more instructions a point, 32 for a plain sum or max) against the build of
# call 2 (.device-bin/old: 32 for all, raised to one wave), the unfused programs at short
# rows, per kernel, two rounds (the new build checked in round 1); between them
# compute-sanitizer memcheck and racecheck of unfused programs whose split rows the host
# raises (RMSNorm backward at 1000003 x 200, softmax_fwd_colsum at 100003 x 1024).
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s46/call4.sh
DEADLINE=${DEADLINE:-180} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
UNF='builtin.module(lower-tensor-to-loop{accumulator-type=f32},canonicalize,cse,loop-coalesce{ops=reductions},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=SZ})'
for r in 1 2; do
  if [ $r = 2 ]; then
    sanitize_text san-rms-1m examples/rmsnorm_bwd.mlir M=1000003,N=200 "${UNF/SZ/M=1000003,N=200}"
    sanitize_text san-sfc-100k examples/softmax_fwd_colsum.mlir M=100003,N=1024 "${UNF/SZ/M=100003,N=1024}"
  fi
  for x in "rmsnorm_bwd M=65536,N=200" "softmax_fwd_colsum M=65536,N=200" "layernorm_bwd M=100003,N=100" "colmax_rowsum M=65536,N=200" "layernorm_bwd M=131072,N=256"; do
    set -- $x; l=h-$1-${2//[=,]/_}
    ck=--no-check; [ $r = 1 ] && ck=""
    B=.device-bin/old bench_text "$l-o$r" "examples/$1.mlir" "$2" gpu-unfused --runs 50 --per-kernel --no-check; kernels "$l-o$r"
    bench_text "$l-n$r" "examples/$1.mlir" "$2" gpu-unfused --runs 50 --per-kernel $ck; kernels "$l-n$r"
  done
done
finish
