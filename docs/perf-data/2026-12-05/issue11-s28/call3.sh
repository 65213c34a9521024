# Session 28, call 3: evict-first L2 hints on all of a dx-writing kernel's DRAM traffic
# (hint3.py): base; cs (ld.global.cs.nc loads, cp.async with an evict-first policy); stcs
# (st.global.cs stores); csboth. The theory: do_bench's fill leaves the L2 full of dirty lines,
# and traffic that allocates normally writes them back inside the timed call; traffic that is
# all evict-first recycles its own lines. The PTX (ptx3/, `morf-opt --pipeline gpu
# --size-hints ... --tuning-cache runtime/engine/src/tuning/h200.json [--tuning-device
# "NVIDIA H100 80GB HBM3:132"] --emit=ptx` at c3dd659; `tar xzf ptx3.tgz` first) is picked by the device's name: the
# H200 cache's schedules on an H200, the cost model's on an H100. Two rounds, alternating;
# round 1's csboth checked against fp64 (the hints change no result; the lowering stamp
# guarantees the launches match). Then the unfused baseline's row kernels under min-ctas.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s28/call3.sh
DEADLINE=${DEADLINE:-540} . tools/scripts/device-call.sh
D=docs/perf-data/2026-12-05/issue11-s28
dev=h100; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && dev=h200
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1): PTX set $dev" >> "$S"
while read -r l f s; do
  ptx_variants "$l" "$f" "$s" "$D/ptx3/$l.$dev" "base cs stcs csboth" csboth 2 --runs 100
done <<LIST
rms64k examples/rmsnorm_bwd.mlir M=65536,N=1024
ln64k examples/layernorm_bwd.mlir M=65536,N=1024
rms576k examples/rmsnorm_bwd.mlir M=576000,N=384
ln32k4k examples/layernorm_bwd.mlir M=32768,N=4096
rms16k8k examples/rmsnorm_bwd.mlir M=16384,N=8192
ln4k16k examples/layernorm_bwd.mlir M=4096,N=16384
LIST
U="builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu"
while read -r l f s; do
  for k in 0 2 3 4; do
    o=""; [ $k != 0 ] && o="{min-ctas=$k}"
    bench_text "unf-$l-min$k" "$f" "$s" "$U$o)" --runs 100
  done
done <<LIST
rms32k768 examples/rmsnorm_bwd.mlir M=32768,N=768
lnf131k256 examples/layernorm_bwd_f32.mlir M=131072,N=256
LIST
finish
