# Session 24, call 10: the committed build (ac5e88d) with the committed cache: the example
# call 5 missed (two_norms_shared_weight, K given) and the table rows whose kernels the
# session's rules leave alone (checked).
DEADLINE=150 . tools/scripts/device-call.sh
bench_cache two_norms examples/two_norms_shared_weight.mlir M=65536,K=65536,N=1024 --runs 100
bench_cache rms64k examples/rmsnorm_bwd.mlir M=65536,N=1024 --runs 100
bench_cache ln64k examples/layernorm_bwd.mlir M=65536,N=1024 --runs 100
bench_cache rms16k8k examples/rmsnorm_bwd.mlir M=16384,N=8192 --runs 100
bench_cache ln32k4k examples/layernorm_bwd.mlir M=32768,N=4096 --runs 100
finish
