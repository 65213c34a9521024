# Issue 11, forty-eighth session, call 3: warp-a-row kernels whose register estimate leaves one
# CTA (8 warps) a SM and that load nothing ahead by default (the cost model's schedules, no
# cache). Their shared memory is idle: the default against a ring of two and of four staged
# rows (`staged-rows`, nothing else changed), unchecked but for the four-row ring.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s48/call3.sh
DEADLINE=${DEADLINE:-330} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r ex sz; do
  l=$ex-${sz//[=,]/_}
  bench_pipeline "$l-default" examples/$ex.mlir $sz "" "" --runs 100 --no-check
  bench_pipeline "$l-s2" examples/$ex.mlir $sz "" "staged-rows=2" --runs 100 --no-check
  bench_pipeline "$l-s4" examples/$ex.mlir $sz "" "staged-rows=4" --runs 100
done <<'LIST'
layernorm_bwd M=65536,N=1024
rmsnorm_bwd M=65536,N=1024
layernorm_bwd M=32768,N=768
layernorm_bwd_f32 M=32768,N=768
rmsnorm_bwd_f32 M=65536,N=1024
logsoftmax_bwd_colsum M=65536,N=1024
softmax_bwd_colsum M=32768,N=768
LIST
grep -h "registers" "$OUT"/logs/*.txt | sed 's/^/regs: /' >> "$S"
finish
