# Session 24, call 1: the read-only family's fixed cost. The torch probe (flush kinds), then
# morf-bench of rowsum and colmax_rowsum (do_bench protocol, then --sync-calls) and --per-kernel.
DEADLINE=300 . tools/scripts/device-call.sh
D=docs/perf-data/2026-12-04/issue11-s24
timeout 150 python3 $D/flush_probe.py > $OUT/logs/flush_probe.txt 2>&1; echo "probe rc=$?" >> "$S"
bench_cache rowsum docs/perf-data/2026-12-04/issue11-s23/programs/rowsum.mlir M=65536,N=1024 --runs 200 --per-kernel
bench_cache colmax_rowsum examples/colmax_rowsum.mlir M=65536,N=1024 --runs 200 --per-kernel
bench_cache rowsum-sync docs/perf-data/2026-12-04/issue11-s23/programs/rowsum.mlir M=65536,N=1024 --runs 200 --sync-calls
tail -8 $OUT/logs/flush_probe.txt >> "$S"
finish
