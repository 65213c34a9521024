# Issue 11, forty-sixth session, call 2: memory-level parallelism of the short and mid rows'
# register-resident row kernel. Call 1 showed the row phase alone (the PTX returning before
# the grid barrier) at 64.8% of the floor at rmsnorm_bwd 65536x200 and 63.0% at layernorm_bwd
# 100003x100 on an H100: the rows, not the barrier, hold them back. Here the knobs that put
# more bytes in flight (a cp.async ring of staged rows, a second row in registers, fewer
# threads a row) against the cost model's choice, one round each, unchecked but for the
# first of each, and the default again at the end of each shape (drift). First, Nsight Compute
# of the unfused split-K column partials that stay under 80% of their own floor (item 3). Then the split-K partial's split rows swept (per kernel).
# Then splits from a work counter with the ticket taken before each split.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s46/call2.sh
DEADLINE=${DEADLINE:-430} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
mlp() {  # label example sizes
  local l=$1 f=$2 sz=$3 k c
  bench_pipeline "$l-default" "$f" "$sz" "" "" --runs 100
  k=0
  for c in "staged-rows=2" "staged-rows=4" "rows-in-flight=2" "rows-in-flight=2 remat-converts=true min-ctas=3" \
           "threads-per-row=16" "threads-per-row=16 staged-rows=2"; do
    k=$((k + 1))
    bench_pipeline "$l-c$k" "$f" "$sz" "" "$c" --runs 100 --no-check
  done
  bench_pipeline "$l-default2" "$f" "$sz" "" "" --runs 100 --no-check
}
UNF='builtin.module(lower-tensor-to-loop{accumulator-type=f32},canonicalize,cse,loop-coalesce{ops=reductions},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)'
ncu_profile unf-sfc1024 examples/softmax_fwd_colsum.mlir softmax_fwd_colsum_k2 M=65536,N=1024 "$UNF"
ncu_profile unf-rms200-dw examples/rmsnorm_bwd.mlir rmsnorm_bwd_k1 M=65536,N=200 "$UNF"
ncu_profile unf-rms3-dw examples/rmsnorm_bwd.mlir rmsnorm_bwd_k1 M=8388608,N=3 "$UNF"
# The split-K partial's rows a block (`split-rows`), per kernel: the heuristic's (64 at
# softmax_fwd_colsum 65536 x 1024: 512 CTAs' worth of blocks on 396 resident CTAs, 80
# registers; 32 at rmsnorm_bwd's dw 65536 x 200: 200 CTAs) against splits that fill the
# resident threads once (83; 10) or twice (42; 20), and others.
splitk() {  # label example sizes rows...
  local l=$1 f=$2 sz=$3 r; shift 3
  for r in "$@"; do
    bench_text "$l-r$r" "$f" "$sz" "${UNF%)}{split-rows=$r})" --runs 50 --per-kernel --no-check
    grep -E '^\| [0-9] ' "$OUT/logs/$l-r$r.txt" | awk -F'|' -v l="$l-r$r" '{printf "  %s k%s grid %s: %s us %s\n", l, $2, $4, $9, $10}' | tr -s ' ' >> "$S"
  done
}
splitk sk-sfc1024 examples/softmax_fwd_colsum.mlir M=65536,N=1024 64 83 42 128 32
splitk sk-rms200 examples/rmsnorm_bwd.mlir M=65536,N=200 32 10 20 16 64
splitk sk-sfc200 examples/softmax_fwd_colsum.mlir M=65536,N=200 32 10 20
# The work loop's ticket now taken before each split's rows (call 1 took it after them):
# dynamic against static splits at the same count, where call 1 lost 5 us (32768 x 768).
for r in 1 2; do
  bench_pipeline "wl-rms768-static2-$r" examples/rmsnorm_bwd.mlir M=32768,N=768 "partials=resident" "resident-splits=2" --runs 100 --no-check
  bench_pipeline "wl-rms768-dyn2-$r" examples/rmsnorm_bwd.mlir M=32768,N=768 "partials=resident" "dynamic-splits=true resident-splits=2" --runs 100 $([ $r = 2 ] && echo --no-check)
done
mlp rms200 examples/rmsnorm_bwd.mlir M=65536,N=200
mlp ln100 examples/layernorm_bwd.mlir M=100003,N=100
mlp rms256 examples/rmsnorm_bwd.mlir M=131072,N=256
mlp ln256 examples/layernorm_bwd.mlir M=131072,N=256
mlp rms768 examples/rmsnorm_bwd.mlir M=32768,N=768
mlp ln768 examples/layernorm_bwd.mlir M=33791,N=768
mlp rms384 examples/rmsnorm_bwd.mlir M=576000,N=384
finish
