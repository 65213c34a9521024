# Issue 11, twenty-second session, call 4: morf-tune at 100000 x 32768 (`--no-check`; this
# session's morf-tune generates inputs past the interpreter's 2^31 elements when unchecked,
# as morf-bench does), starting from call 3's cache (its M~2^13,N=32768 entries). Then the
# new entries: compute-sanitizer at M = 1031 on each bucket's compiled program, dw/db over 5
# fresh processes at 8192 x 32768, and morf-bench of the cache (8192 rows checked).
set -u
DEADLINE=480 . tools/scripts/device-call.sh
KN=partials,splits,staged-rows,rows-in-flight,interleave-splits,remat-converts,min-ctas,cluster,reload,chunk-major,contract-fma
tune rmsnorm_bwd M=100000,N=32768 100 --knobs $KN --max-trials 12 --no-check
tune layernorm_bwd M=100000,N=32768 100 --knobs $KN --max-trials 12 --no-check
bench_cache rms8k-cache examples/rmsnorm_bwd.mlir M=8192,N=32768 --runs 100
bench_cache ln8k-cache examples/layernorm_bwd.mlir M=8192,N=32768 --runs 100
bench_cache rms100k-cache examples/rmsnorm_bwd.mlir M=100000,N=32768 --runs 30 --no-check
bench_cache ln100k-cache examples/layernorm_bwd.mlir M=100000,N=32768 --runs 30 --no-check
sanitize rms8k rmsnorm_bwd M=1031,N=32768 M=8192,N=32768
sanitize ln8k layernorm_bwd M=1031,N=32768 M=8192,N=32768
sanitize rms64k rmsnorm_bwd M=1031,N=32768 M=65536,N=32768
sanitize ln64k layernorm_bwd M=1031,N=32768 M=65536,N=32768
determinism rms8k rmsnorm_bwd M=8192,N=32768 5
determinism ln8k layernorm_bwd M=8192,N=32768 5
finish
