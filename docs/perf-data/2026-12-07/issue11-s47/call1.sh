# Issue 11, forty-seventh session, call 1 (the forty-sixth session's call 6, not run there):
# `lower-loop-to-gpu{min-ctas=estimate}` (the row kernel planned for every CTA its register
# estimate leaves resident, without the quarter margin) against the default plan, at the
# example shapes whose plan it changes (tools/scripts/schedule_diff.sh with the margin lifted
# for kernels of a warp a row or less: about 60). Two rounds alternating, the first `estimate`
# run of each shape checked against fp64. If it wins broadly, make it the default for
# warp-a-row kernels (and say where it loses).
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s47/call1.sh
DEADLINE=${DEADLINE:-480} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for r in 1 2; do
  while read -r ex sz; do
    [ -z "$ex" ] && continue
    l=est-$ex-${sz//[=,]/_}
    ck=--no-check; [ $r = 1 ] && ck=""
    bench_pipeline "$l-plan$r" "examples/$ex.mlir" "$sz" "" "" --runs 100 --no-check
    bench_pipeline "$l-est$r" "examples/$ex.mlir" "$sz" "" "min-ctas=estimate" --runs 100 $ck
  done <<'LIST'
rmsnorm_bwd M=65536,N=200
rmsnorm_bwd M=131072,N=256
rmsnorm_bwd M=576000,N=384
rmsnorm_bwd M=1000000,N=256
rmsnorm_bwd M=8388608,N=3
layernorm_bwd M=131072,N=256
layernorm_bwd M=1000000,N=256
layernorm_bwd_f32 M=131072,N=256
colmax_rowsum M=65536,N=200
colmax_rowsum M=576000,N=384
colmax_rowsum M=32768,N=768
logsoftmax_bwd_colsum M=100003,N=100
logsoftmax_bwd_colsum M=131072,N=256
gelu_bwd_bias M=8388608,N=3
LIST
done
finish
