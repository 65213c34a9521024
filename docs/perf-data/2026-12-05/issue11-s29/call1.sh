# Session 29, call 1: spill relief on the device, then session 28's evict-first variants.
# 1. The unfused baseline's row kernels where ptxas spilled without a bound (rmsnorm_bwd,
#    two_norms_shared_weight at 32768 x 768; layernorm_bwd_f32 at 131072 x 256 and 32768 x 768):
#    the binaries before spill relief (.device-bin/old, 0272811) against after, alternating,
#    two rounds; the logs' resource lines show the JIT's registers, spills and the relief.
#    Then the whole unfused pipeline (morf-bench's baseline) at rmsnorm_bwd 32768 x 768, old
#    against new.
# 2. Session 28's call 3 (evict-first loads, ring copies and stores; `tar xzf
#    ../issue11-s28/ptx3.tgz -C ../issue11-s28` first), one round, checked once.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s29/call1.sh
DEADLINE=${DEADLINE:-560} . tools/scripts/device-call.sh
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
res() { grep -o '@[a-z_0-9]* [0-9]* registers[^;]*' "$OUT/logs/$1.txt" | sort -u | tr '\n' ';' | sed "s/^/  $1 resources: /" >> "$S"; echo >> "$S"; }
for i in 1 2; do
  while read -r l f s; do
    B=.device-bin/old bench_text "unf-$l-old$i" "$f" "$s" "$U" --runs 100; [ $i = 1 ] && res "unf-$l-old$i"
    bench_text "unf-$l-new$i" "$f" "$s" "$U" --runs 100; [ $i = 1 ] && res "unf-$l-new$i"
  done <<LIST
rms32k768 examples/rmsnorm_bwd.mlir M=32768,N=768
two32k768 examples/two_norms_shared_weight.mlir M=32768,N=768
lnf131k256 examples/layernorm_bwd_f32.mlir M=131072,N=256
lnf32k768 examples/layernorm_bwd_f32.mlir M=32768,N=768
LIST
done
D=docs/perf-data/2026-12-05/issue11-s28
dev=h100; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && dev=h200
while read -r l f s; do
  ptx_variants "$l" "$f" "$s" "$D/ptx3/$l.$dev" "base cs stcs csboth" csboth 1 --runs 100
done <<LIST
rms64k examples/rmsnorm_bwd.mlir M=65536,N=1024
ln64k examples/layernorm_bwd.mlir M=65536,N=1024
rms576k examples/rmsnorm_bwd.mlir M=576000,N=384
ln32k4k examples/layernorm_bwd.mlir M=32768,N=4096
rms16k8k examples/rmsnorm_bwd.mlir M=16384,N=8192
ln4k16k examples/layernorm_bwd.mlir M=4096,N=16384
LIST
finish
