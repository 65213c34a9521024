# Issue 11, thirty-eighth session, call 6 (the machine a plain run gets; the rows below are
# for an H200): the table rows of issue 11 with the committed cache and Inductor's default in
# the same call (table_with_inductor), then call 5's A/B (a6052b8 against eef6986 at N = 3;
# the unfused LayerNorm backward at 8388608 x 3 with packed-rows=4).
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s38/call6.sh
DEADLINE=${DEADLINE:-570} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
table_with_inductor
ab_list --runs 100 <<'LIST'
row_col_stats M=8388608,N=3
colmax_rowsum M=8388608,N=3
reduce3d B=4096,M=2048,N=3
LIST
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu"
bench_text unf-ln-N3-default examples/layernorm_bwd.mlir M=8388608,N=3 "$U{size-hints=M=8388608,N=3})" --runs 100
bench_text unf-ln-N3-packed4 examples/layernorm_bwd.mlir M=8388608,N=3 "$U{packed-rows=4 size-hints=M=8388608,N=3})" --runs 100
finish
