# Issue 11, twenty-third session, call 2. Call 1 found that more CTAs a SM do not move
# colmax_rowsum or reduce3d (48.1 us cached, 49.2 at four CTAs a SM; 86.6% for a copy of the
# same bytes): the read-only family is not short of warps. Here: (1) where that time goes: the
# two halves of colmax_rowsum as programs of their own (rowsum, colmax), per-kernel times, and
# ncu of the fused row kernel; (2) rows staged through shared memory at two and three CTAs a
# SM for the compute-heavy warp-per-row kernels (gelu_bwd_bias 147.3 -> 122.3 us in call 1).
set -u
DEADLINE=540 . tools/scripts/device-call.sh
M=M=65536,N=1024
P=docs/perf-data/2026-12-04/issue11-s23/programs
F="partials=resident"
R="remat-converts=true chunk-major=true interleave-splits=true"
K="--runs 100"
for p in rowsum colmax; do bench_cache $p $P/$p.mlir $M $K --per-kernel; done
bench_cache colmax_rowsum-cache examples/colmax_rowsum.mlir $M $K --per-kernel
bench_pipeline colmax_rowsum-launch examples/colmax_rowsum.mlir $M "partials=0" "final=launch" $K --per-kernel
bench_pipeline colmax_rowsum-t1024 examples/colmax_rowsum.mlir $M "$F" "$R threads=1024 min-ctas=1" $K
bench_pipeline colmax_rowsum-tpr16 examples/colmax_rowsum.mlir $M "$F" "$R threads-per-row=16 shared-accs=true staged-rows=2" $K
# ncu of the fused row kernel (cached) and of rowsum's.
for p in colmax_rowsum rowsum; do
  f=examples/$p.mlir; [ $p = rowsum ] && f=$P/$p.mlir
  $B/morf-opt $f --pipeline gpu --size-hints $M --tuning-cache $C -o $OUT/logs/ncu-$p.mlir 2>> $OUT/logs/opt.txt
  timeout 90 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section LaunchStats -k regex:${p}_k0 --launch-count 1 \
    $B/morf-run $OUT/logs/ncu-$p.mlir --device gpu --random $M --output-dir /tmp/ncu-$p > $OUT/logs/ncu-$p.txt 2>&1
  echo "ncu $p rc=$?: $(grep -E 'DRAM Throughput|Achieved Occupancy|Registers Per|Duration|Theoretical Occupancy' $OUT/logs/ncu-$p.txt | tr -s ' ' | tr '\n' ';')" >> $S
done
echo "== staged rows for compute-heavy warp-per-row kernels" >> "$S"
e=gelu_bwd_bias
bench_pipeline $e-staged2-mc3 examples/$e.mlir $M "$F" "$R staged-rows=2 min-ctas=3" $K
bench_pipeline $e-staged2-mc2 examples/$e.mlir $M "$F" "$R staged-rows=2 min-ctas=2" $K
bench_pipeline $e-staged3-mc3 examples/$e.mlir $M "$F" "$R staged-rows=3 min-ctas=3" $K
e=tanh_bwd_bias
bench_pipeline $e-staged2-mc3 examples/$e.mlir $M "$F" "$R staged-rows=2 min-ctas=3" $K
bench_pipeline $e-staged2-mc2 examples/$e.mlir $M "$F" "$R staged-rows=2 min-ctas=2" $K
bench_pipeline $e-rif1-mc2 examples/$e.mlir $M "$F" "$R rows-in-flight=1 min-ctas=2" $K
e=softmax_fwd_colsum
bench_pipeline $e-staged2-mc2 examples/$e.mlir $M "$F" "$R staged-rows=2 min-ctas=2" $K
bench_pipeline $e-rif1-mc2 examples/$e.mlir $M "$F" "$R rows-in-flight=1 min-ctas=2" $K
e=rmsnorm_fwd
bench_pipeline $e-staged3-mc3 examples/$e.mlir $M "" "$R staged-rows=3 min-ctas=3" $K
bench_pipeline $e-staged2-mc2 examples/$e.mlir $M "" "$R staged-rows=2 min-ctas=2" $K
e=layernorm_fwd
bench_pipeline $e-staged2-mc2 examples/$e.mlir $M "" "$R staged-rows=2 min-ctas=2" $K
finish
