# Issue 11, twenty-second session, call 3: morf-tune with the two new recipes (a cluster of 4
# per row, two CTAs a SM; a cluster of 8, three CTAs a SM; each CTA's share of the row in
# registers) at N = 32768: 8192 rows (checked against fp64) and 100000 rows (bucket M~2^16;
# `--no-check`: the host's fp64 reference of 3.3 G elements is too slow). Then the winners'
# compiled programs under compute-sanitizer at M = 1031 (memcheck, racecheck).
set -u
DEADLINE=560 . tools/scripts/device-call.sh
KN=partials,splits,staged-rows,rows-in-flight,interleave-splits,remat-converts,min-ctas,cluster,reload,chunk-major,contract-fma
tune rmsnorm_bwd M=8192,N=32768 100 --knobs $KN --max-trials 16
tune layernorm_bwd M=8192,N=32768 100 --knobs $KN --max-trials 16
tune rmsnorm_bwd M=100000,N=32768 120 --knobs $KN --max-trials 12 --no-check
tune layernorm_bwd M=100000,N=32768 120 --knobs $KN --max-trials 12 --no-check
sanitize rms32k rmsnorm_bwd M=1031,N=32768 M=65536,N=32768
sanitize ln32k layernorm_bwd M=1031,N=32768 M=65536,N=32768
finish
