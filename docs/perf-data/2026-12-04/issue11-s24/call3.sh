# Session 24, call 3: L2 eviction hints on read-once loads (hand-rewritten PTX through
# morf-bench --ptx; hint_ptx.py): base, cs (ld.global.cs.nc), ef (createpolicy evict_first +
# L2::cache_hint on ld.global.nc and cp.async). Committed cache, do_bench protocol. Two rounds,
# alternating; the first round checked against fp64, the second unchecked.
DEADLINE=480 . tools/scripts/device-call.sh
D=docs/perf-data/2026-12-04/issue11-s24
R=docs/perf-data/2026-12-04/issue11-s23/programs/rowsum.mlir
while read -r l f s; do
  for round in 1 2; do
    ck=""; [ $round = 2 ] && ck=--no-check
    for v in base cs ef; do
      p=$D/ptx/$l.ptx; [ $v != base ] && p=$D/ptx/$l.$v.ptx
      bench_cache "$l-$v-$round" "$f" "$s" --runs 100 --ptx "$p" $ck
    done
  done
done <<LIST
rowsum $R M=65536,N=1024
colmax_rowsum examples/colmax_rowsum.mlir M=65536,N=1024
row_col_stats examples/row_col_stats.mlir M=65536,N=1024
reduce3d examples/reduce3d.mlir B=64,M=1024,N=1024
rms64k examples/rmsnorm_bwd.mlir M=65536,N=1024
ln64k examples/layernorm_bwd.mlir M=65536,N=1024
rms32k768 examples/rmsnorm_bwd.mlir M=32768,N=768
gelu64k examples/gelu_bwd_bias.mlir M=65536,N=1024
sfc64k examples/softmax_fwd_colsum.mlir M=65536,N=1024
rms16k8k examples/rmsnorm_bwd.mlir M=16384,N=8192
rms576k examples/rmsnorm_bwd.mlir M=576000,N=384
ln576k examples/layernorm_bwd.mlir M=576000,N=384
LIST
finish
