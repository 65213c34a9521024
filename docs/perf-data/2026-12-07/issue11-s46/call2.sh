# Issue 11, forty-sixth session, call 2. (a) Nsight Compute of the unfused split-K column
# partial that stays furthest under 80% of its own floor (item 3): softmax_fwd_colsum's
# column sum at 65536 x 1024 (80 registers, 3 CTAs a SM, 512 CTAs' worth of row blocks on 396
# resident CTAs), and rmsnorm_bwd's dw at 65536 x 200 (200 CTAs). (b) The split rows raised at
# run time to one wave of the partial's resident threads (this build) against the fixed
# heuristic (.device-bin/old, the build of call 1), the unfused programs per kernel, two
# rounds, unchecked but for round 1 of the new build. (c) Fixed split rows swept (per
# kernel). (d) The work loop's ticket now taken before each split's rows, against static
# splits. (e) Short and mid rows' fused row kernel with more bytes in flight (a cp.async
# ring, a second row in registers, 16 lanes a row) against the cost model's choice.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s46/call2.sh
DEADLINE=${DEADLINE:-330} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
UNF='builtin.module(lower-tensor-to-loop{accumulator-type=f32},canonicalize,cse,loop-coalesce{ops=reductions},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)'
# (b)
for r in 1 2; do
  for x in "softmax_fwd_colsum M=65536,N=1024" "softmax_fwd_colsum M=576000,N=384" "rmsnorm_bwd M=576000,N=384" \
           "rmsnorm_bwd M=65536,N=1024" "layernorm_bwd M=65536,N=1024" "colmax_rowsum M=65536,N=1024"; do
    set -- $x; l=fill-$1-${2//[=,]/_}
    ck=--no-check; [ $r = 1 ] && ck=""
    B=.device-bin/old bench_text "$l-o$r" "examples/$1.mlir" "$2" gpu-unfused --runs 50 --per-kernel --no-check; kernels "$l-o$r"
    bench_text "$l-n$r" "examples/$1.mlir" "$2" gpu-unfused --runs 50 --per-kernel $ck; kernels "$l-n$r"
  done
done
# (a)
ncu_profile unf-sfc1024 examples/softmax_fwd_colsum.mlir softmax_fwd_colsum_k2 M=65536,N=1024 "${UNF%)}{split-rows=64})"
# (c)
splitk() {  # label example sizes rows...
  local l=$1 f=$2 sz=$3 r; shift 3
  for r in "$@"; do
    bench_text "$l-r$r" "$f" "$sz" "${UNF%)}{split-rows=$r})" --runs 50 --per-kernel --no-check; kernels "$l-r$r"
  done
}
splitk sk-rms200 examples/rmsnorm_bwd.mlir M=65536,N=200 32 10 16 20 64
# (d)
for r in 1 2; do
  bench_pipeline "wl-rms768-static2-$r" examples/rmsnorm_bwd.mlir M=32768,N=768 "partials=resident" "resident-splits=2" --runs 100 --no-check
  bench_pipeline "wl-rms768-dyn2-$r" examples/rmsnorm_bwd.mlir M=32768,N=768 "partials=resident" "dynamic-splits=true resident-splits=2" --runs 100 $([ $r = 2 ] && echo --no-check)
done
# (e)
mlp() {  # label example sizes
  local l=$1 f=$2 sz=$3 k c
  bench_pipeline "$l-default" "$f" "$sz" "" "" --runs 100
  k=0
  for c in "staged-rows=2" "staged-rows=4" "rows-in-flight=2 remat-converts=true min-ctas=3" "threads-per-row=16"; do
    k=$((k + 1))
    bench_pipeline "$l-c$k" "$f" "$sz" "" "$c" --runs 100 --no-check
  done
  bench_pipeline "$l-default2" "$f" "$sz" "" "" --runs 100 --no-check
}
mlp rms200 examples/rmsnorm_bwd.mlir M=65536,N=200
mlp ln100 examples/layernorm_bwd.mlir M=100003,N=100
finish
