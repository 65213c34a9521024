#!/usr/bin/env bash
# Session 12 call 1: where the small shapes lose their time, the long rows, evidence.
# 1. morf-bench (100 calls, builtin cache) with the new same-bytes copy column: the small-floor
#    shapes outside the table, an M sweep at N = 768 (fixed cost against M), the examples under
#    80% at 65536 x 1024, and the long rows 4096x16384 (checked) and 100000x32768 (unchecked;
#    the bucket's program is checked by morf-run at 4099x32768).
# 2. ncu: the eleventh session's tuned schedules (DRAM throughput, registers), and the full
#    stall sections of RMSNorm at 32768x768 (untuned) and 65536x1024 (tuned).
# 3. dw/db bitwise over 100 calls with the tuned cache (gpu_differential determinism step),
#    run second.
set -u
T0=$SECONDS
mkdir -p $OUT/logs $OUT/json
late() { [ $((SECONDS-T0)) -gt $1 ] && { echo "SKIPPED $2 (deadline)"; return 0; }; return 1; }
B=.device-bin
bench() { # label deadline file args...
    local l=$1 d=$2 f=$3; shift 3
    late $d "bench $l" && return
    timeout 150 $B/morf-bench examples/$f.mlir "$@" --runs 100 --warmup 10 --json $OUT/json/bench-$l.json \
        >$OUT/logs/bench-$l.txt 2>$OUT/logs/bench-$l.log
    echo "== bench $l rc=$? t=$((SECONDS-T0)) $(grep -o 'copy: .*' $OUT/logs/bench-$l.log)"
    grep -E '^\| [0-9]' $OUT/logs/bench-$l.txt | cut -d'|' -f2,4,7,8,10
}
for f in rmsnorm_bwd layernorm_bwd; do
    bench $f-small 100 $f --sizes M=32768,N=768 --sizes M=33791,N=768 --sizes M=131072,N=256 --sizes M=8388608,N=2 \
        --sizes M=65536,N=768 --sizes M=131072,N=768 --sizes M=262144,N=768 --no-check
done
if ! late 120 determinism; then
    MORF_GPU_DIFF_DEVICE=gpu MORF_GPU_DIFF_EXAMPLES=examples MORF_GPU_DIFF_JSON_DIR=$OUT/json timeout 200 \
        $B/gpu_differential --exact column_reductions_are_deterministic --nocapture >$OUT/logs/determinism.txt 2>&1
    echo "== determinism rc=$? t=$((SECONDS-T0))"; grep -E '^\|' $OUT/logs/determinism.txt | cut -c1-150
fi
for f in softmax_fwd_colsum gelu_bwd_bias colmax_rowsum row_col_stats tanh_bwd_bias; do
    bench $f 340 $f --sizes M=65536,N=1024 --no-check
done
bench reduce3d 345 reduce3d --sizes B=64,M=1024,N=1024 --no-check
for f in rmsnorm_bwd layernorm_bwd; do
    bench $f-long 400 $f --sizes M=4096,N=16384 --unfused
    bench $f-huge 430 $f --sizes M=100000,N=32768 --no-check
    late 440 "check $f 4099x32768" || { timeout 60 $B/morf-run examples/$f.mlir --device gpu --random M=4099,N=32768 --check \
        --output-dir /tmp/chk >$OUT/logs/check-$f.log 2>&1; echo "check $f M=4099,N=32768 rc=$?"; grep -i 'check\|tuned\|error' $OUT/logs/check-$f.log | cut -c1-160 | head -5; }
done
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
ncu1() { # label deadline sections file sizes [extra morf-run args]
    local l=$1 d=$2 sec=$3 f=$4 s=$5; shift 5
    late $d "ncu $l" && return
    timeout 100 $NCU --clock-control none $sec $B/morf-run examples/$f.mlir --device gpu --random $s --output-dir /tmp/ncu "$@" \
        >$OUT/logs/ncu-$l.txt 2>&1
    echo "== ncu $l rc=$?"; grep -E "_k[0-9]|dram__throughput|gpu__time|registers_per|grid_size|block_size|Duration|DRAM Throughput|Achieved Occupancy|Registers Per" $OUT/logs/ncu-$l.txt | head -14
}
M="--metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__block_size"
ncu1 rms576 470 "$M" rmsnorm_bwd M=576000,N=384
ncu1 ln576 480 "$M" layernorm_bwd M=576000,N=384
ncu1 ln576f32 490 "$M" layernorm_bwd_f32 M=576000,N=384
ncu1 rms576f32 500 "$M" rmsnorm_bwd_f32 M=576000,N=384
FULL="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats"
ncu1 rms32768x768-full 515 "$FULL" rmsnorm_bwd M=32768,N=768
ncu1 rms65536x1024-full 540 "$FULL" rmsnorm_bwd M=65536,N=1024
tar czf $OUT/raw.tgz -C $OUT logs json && rm -rf $OUT/logs $OUT/json
