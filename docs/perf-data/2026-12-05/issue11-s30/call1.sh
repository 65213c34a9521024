# Session 30, call 1: (a) spill relief with the local-memory fallback (session 29's call 2:
# the unfused row kernels that spilled 12-28 bytes; resource lines show the relief), (b) CTAs a
# SM above the plan's where ptxas assembles the kernel without a spill (tools/scripts/ptx_sweep
# style sweep of min-ctas, this session): the short rows, N = 2, the read-only family.
#   OUT=$OUT DEADLINE=420 bash docs/perf-data/2026-12-05/issue11-s30/call1.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"
res() { grep -o '@[a-z_0-9]* [0-9]* registers[^;]*' "$OUT/logs/$1.txt" | sort -u | tr '\n' ';' | sed "s/^/  $1 resources: /" >> "$S"; echo >> "$S"; }
while read -r l f s; do
  bench_text "unf-$l" "$f" "$s" "$U" --runs 100; res "unf-$l"
done <<LIST
rms32k768 examples/rmsnorm_bwd.mlir M=32768,N=768
lnf131k256 examples/layernorm_bwd_f32.mlir M=131072,N=256
two32k768 examples/two_norms_shared_weight.mlir M=32768,K=32768,N=768
LIST
# label example sizes min-ctas values (the first is the plan's)
while read -r l e s cs; do
  for c in $cs; do
    bench_pipeline "$l-c$c" "examples/$e.mlir" "$s" "partials=resident" "min-ctas=$c" --runs 100; res "$l-c$c"
  done
done <<LIST
rms8m2 rmsnorm_bwd M=8388608,N=2 3 5 7
ln8m2 layernorm_bwd M=8388608,N=2 2 4 6
rms131k256 rmsnorm_bwd M=131072,N=256 3 4
ln131k256 layernorm_bwd M=131072,N=256 2 4
colmax64k colmax_rowsum M=65536,N=1024 2 3
colmax32k768 colmax_rowsum M=32768,N=768 2 4
smbwd576k softmax_bwd_colsum M=576000,N=384 3 5
rmsf576k rmsnorm_bwd_f32 M=576000,N=384 2 4
rcs32k4k row_col_stats M=32768,N=4096 2 4
smfwd32k4k softmax_fwd_colsum M=32768,N=4096 3 5
LIST
# repeat of the first pair, for noise
bench_pipeline "rms8m2-c3-r2" examples/rmsnorm_bwd.mlir M=8388608,N=2 "partials=resident" "min-ctas=3" --runs 100
bench_pipeline "rms8m2-c7-r2" examples/rmsnorm_bwd.mlir M=8388608,N=2 "partials=resident" "min-ctas=7" --runs 100
finish
