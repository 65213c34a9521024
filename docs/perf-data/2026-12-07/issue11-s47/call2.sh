# Issue 11, forty-seventh session, call 2: the plan without the quarter margin, made the default
# (`min_ctas_planned` bounds, relieved one CTA lower at load where the JIT spills under them),
# against the build before it (`.device-bin/old`: the margin plan), at 25 of the 119 example
# shapes it re-plans, mostly ones call 1 did not time, and rmsnorm_bwd at 576000 x 384, where
# the plan spills and relief takes it back to two CTAs. Two rounds alternating old and new, the
# new build's first run of each shape checked against fp64.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s47/call2.sh
DEADLINE=${DEADLINE:-540} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for r in 1 2; do
  while read -r ex sz; do
    [ -z "$ex" ] && continue
    l=np-$ex-${sz//[=,]/_}
    ck=--no-check; [ $r = 1 ] && ck=""
    B=.device-bin/old bench_pipeline "$l-o$r" "examples/$ex.mlir" "$sz" "" "" --runs 100 --no-check
    bench_pipeline "$l-n$r" "examples/$ex.mlir" "$sz" "" "" --runs 100 $ck
  done <<'LIST'
rmsnorm_bwd M=576000,N=384
rmsnorm_bwd M=10000,N=2000
rmsnorm_bwd_f32 M=576000,N=384
rmsnorm_bwd_f32 M=131072,N=256
layernorm_bwd M=10000,N=2000
layernorm_bwd M=262144,N=64
layernorm_bwd_f32 M=2097152,N=17
layernorm_bwd_f32 M=10000,N=2000
layernorm_fwd M=32768,N=4096
rmsnorm_fwd M=32768,N=4096
softmax_fwd_colsum M=576000,N=384
softmax_fwd_colsum M=65536,N=200
softmax_fwd_colsum M=32768,N=4096
softmax_bwd_colsum M=131072,N=256
logsoftmax_bwd_colsum M=32768,N=4096
row_col_stats M=32768,N=4096
row_col_stats M=100003,N=100
colmax_rowsum M=32768,N=4096
colmax_rowsum M=5120,N=5120
gelu_bwd_bias M=32768,N=4096
tanh_bwd_bias M=32768,N=4096
two_norms_shared_weight M=32768,N=4096,K=64
two_norms_shared_weight M=131072,N=256,K=64
reduce3d B=64,M=8192,N=384
layernorm_bwd M=131072,N=256
LIST
done
grep -h "spill relief" "$OUT"/logs/np-*-n1.txt | sed 's/^/relief: /' | sort -u >> "$S"
finish
