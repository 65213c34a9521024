# Session 29, call 2: spill relief again after call 1 showed the JIT log silent where the
# driver's JIT cache answered (the old binary compiled the same PTX first): relief now falls
# back on the kernel's local memory. New binaries only; the resource lines show the relief.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s29/call2.sh
DEADLINE=${DEADLINE:-120} . tools/scripts/device-call.sh
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
res() { grep -o '@[a-z_0-9]* [0-9]* registers[^;]*' "$OUT/logs/$1.txt" | sort -u | tr '\n' ';' | sed "s/^/  $1 resources: /" >> "$S"; echo >> "$S"; }
while read -r l f s; do
  bench_text "unf-$l-new" "$f" "$s" "$U" --runs 100; res "unf-$l-new"
done <<LIST
rms32k768 examples/rmsnorm_bwd.mlir M=32768,N=768
lnf131k256 examples/layernorm_bwd_f32.mlir M=131072,N=256
lnf32k768 examples/layernorm_bwd_f32.mlir M=32768,N=768
two32k768 examples/two_norms_shared_weight.mlir M=32768,K=32768,N=768
LIST
finish
