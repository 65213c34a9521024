# Issue 11, thirty-eighth session, call 5: (a) the fused shapes whose schedule a6052b8's cost
# model moves (a written row known by its axes: at N = 3 the search takes S = 32768 for 16384),
# main before the session (eef6986, .device-bin/old) against a6052b8, two rounds; (b) the
# gpu-unfused LayerNorm backward at 8388608 x 3, whose row reductions pack 8 rows since
# ca7d191 (call 1 and call 4: 502 -> 526 us), with packed-rows=4 forced against the default.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s38/call5.sh
DEADLINE=${DEADLINE:-400} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for r in 1 2; do
ab_list --runs 100 <<'LIST'
row_col_stats M=8388608,N=3
colmax_rowsum M=8388608,N=3
reduce3d B=4096,M=2048,N=3
LIST
done
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu"
for r in 1 2; do
  bench_text unf-ln-N3-default-$r examples/layernorm_bwd.mlir M=8388608,N=3 "$U{size-hints=M=8388608,N=3})" --runs 100
  bench_text unf-ln-N3-packed4-$r examples/layernorm_bwd.mlir M=8388608,N=3 "$U{packed-rows=4 size-hints=M=8388608,N=3})" --runs 100
done
finish
