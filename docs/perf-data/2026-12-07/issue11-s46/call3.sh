# Issue 11, forty-sixth session, call 3. (a) The split-K partial's least split rows down to
# 16 (call 2: rmsnorm_bwd's dw at 65536 x 200 ran 200 CTAs of 32-row blocks at 70% of its
# floor, 400 CTAs of 16 rows at 93%): this build against call 2's (.device-bin/old), the
# unfused programs at short rows, per kernel, one round (the new build checked). (b) 16 lanes
# a row, and 4 CTAs a SM, for the fused short-row kernels against the cost model's warp a
# row (call 2: 43.6 against 51.4 us at rmsnorm_bwd 65536 x 200 on an H100 whose default ran
# 8 us slower than call 1's), two rounds.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s46/call3.sh
DEADLINE=${DEADLINE:-250} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for x in "rmsnorm_bwd M=65536,N=200" "softmax_fwd_colsum M=65536,N=200" "layernorm_bwd M=100003,N=100" "colmax_rowsum M=65536,N=200"; do
  set -- $x; l=f16-$1-${2//[=,]/_}
  B=.device-bin/old bench_text "$l-o" "examples/$1.mlir" "$2" gpu-unfused --runs 50 --per-kernel --no-check; kernels "$l-o"
  bench_text "$l-n" "examples/$1.mlir" "$2" gpu-unfused --runs 50 --per-kernel; kernels "$l-n"
done
for r in 1 2; do
  for x in "rmsnorm_bwd M=65536,N=200" "layernorm_bwd M=65536,N=200" "rmsnorm_bwd M=131072,N=256" "rmsnorm_bwd M=100003,N=100"; do
    set -- $x; l=lanes-$1-${2//[=,]/_}
    bench_pipeline "$l-warp-$r" "examples/$1.mlir" "$2" "" "" --runs 100 --no-check
    bench_pipeline "$l-t16-$r" "examples/$1.mlir" "$2" "" "threads-per-row=16" --runs 100 $([ $r = 2 ] && echo --no-check)
    bench_pipeline "$l-c4-$r" "examples/$1.mlir" "$2" "" "min-ctas=4" --runs 100 --no-check
  done
done
finish
