# Session 24, call 5: the committed cache (with call 4's entries) on every example at 65536 x
# 1024 (checked), and stream-loads off/default (untuned, one binary) on the read-only
# examples at shapes outside the table; sanitizers on a streamed kernel at odd sizes.
DEADLINE=560 . tools/scripts/device-call.sh
M=M=65536,N=1024
for e in colmax_rowsum row_col_stats gelu_bwd_bias tanh_bwd_bias softmax_fwd_colsum softmax_bwd_colsum \
         logsoftmax_bwd_colsum layernorm_fwd rmsnorm_fwd two_norms_shared_weight rmsnorm_bwd layernorm_bwd; do
  bench_cache ex-$e examples/$e.mlir $M --runs 100
done
bench_cache ex-reduce3d examples/reduce3d.mlir B=64,M=1024,N=1024 --runs 100
bench_cache ex-rmsnorm_bwd_f32 examples/rmsnorm_bwd_f32.mlir M=32768,N=1024 --runs 100
bench_cache ex-layernorm_bwd_f32 examples/layernorm_bwd_f32.mlir M=32768,N=1024 --runs 100
for s in M=8192,N=1024 M=32768,N=768 M=33791,N=768 M=131072,N=256 M=1000000,N=256 M=8388608,N=2 M=4096,N=16384; do
  for e in colmax_rowsum row_col_stats; do
    for v in off auto; do
      lo=""; [ $v = off ] && lo="stream-loads=false"
      bench_pipeline sh-$e-${s//[=,]/_}-$v examples/$e.mlir $s "" "$lo" --runs 100
    done
  done
done
for s in B=256,M=256,N=256 B=7,M=1000,N=1000; do
  for v in off auto; do
    lo=""; [ $v = off ] && lo="stream-loads=false"
    bench_pipeline sh-reduce3d-${s//[=,]/_}-$v examples/reduce3d.mlir $s "" "$lo" --runs 100
  done
done
sanitize cm1031 colmax_rowsum M=1031,N=1024 M=65536,N=1024
sanitize rcs7 row_col_stats M=7,N=100 M=7,N=100
finish
