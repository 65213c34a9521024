# Issue 11, twenty-third session, call 6: why gelu_bwd_bias at 200000 x 896 stays slower with
# the staged rule (364 -> 433 us in call 5, no spill) while 65536 x 960 gains (135 -> 117).
# Its fixed split (512 rows, 391 splits) over the staged kernel's 264 resident CTAs leaves
# half of them a second split: the run-time split a resident CTA (`partials=resident`), one
# CTA a SM, three staged rows, and the old two rows in registers, with this binary.
set -u
DEADLINE=200 . tools/scripts/device-call.sh
s=M=200000,N=896; f=examples/gelu_bwd_bias.mlir; K="--runs 100 --no-check"
bench_pipeline g896-default $f $s "" "" $K
bench_pipeline g896-resident $f $s "partials=resident" "" --runs 100
bench_pipeline g896-resident-il $f $s "partials=resident" "interleave-splits=true" $K
bench_pipeline g896-mc1 $f $s "" "min-ctas=1" $K
bench_pipeline g896-staged3 $f $s "" "staged-rows=3 rows-in-flight=1 remat-converts=true chunk-major=true" $K
bench_pipeline g896-rif2 $f $s "" "rows-in-flight=2" $K
finish
