# Issue 11, sixteenth session, call 3: where RMSNorm backward's time goes beside rownorm's
# (its dx alone, call 2: 7.5% faster at 65536 x 1024, 5.5% at 16384 x 8192): the final
# reduction in its own launch (per kernel), the launch shape (rows in flight, CTAs per SM,
# partials), and rownorm with RMSNorm's launch shape.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 545 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
D=docs/perf-data/2026-12-03/issue11-s16/programs
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label file sizes fuse-opts lower-opts extra...
  local l=$1 f=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 40 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 40 $B/morf-bench $f --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 --no-check \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'launch [0-9]* @[a-z_0-9]* (grid [0-9]*[^)]*): median [0-9.]* us' $OUT/logs/$l.txt | sed 's/shared [0-9]*//' | tr '\n' ';')" >> $S
}
R=examples/rmsnorm_bwd.mlir
L=examples/layernorm_bwd.mlir
S1=M=65536,N=1024
run rms1k-cached $R $S1 "partials=0 splits=512" "rows-in-flight=2"
run rms1k-cached-launch $R $S1 "partials=0 splits=512" "rows-in-flight=2 final=launch" --per-kernel
run rms1k-rif1 $R $S1 "partials=0 splits=512" "rows-in-flight=1"
run rms1k-rif1-p264 $R $S1 "partials=264" "rows-in-flight=1"
run rms1k-rif1-p264-launch $R $S1 "partials=264" "rows-in-flight=1 final=launch" --per-kernel
run rms1k-default $R $S1 "partials=resident" ""
run rownorm1k-default $D/rownorm.mlir $S1 "partials=resident" ""
run rownorm1k-rif2-g128 $D/rownorm.mlir $S1 "partials=resident" "rows-in-flight=2 grid=128"
run rownorm1k-rif2 $D/rownorm.mlir $S1 "partials=resident" "rows-in-flight=2"
run rms1k-cached-2 $R $S1 "partials=0 splits=512" "rows-in-flight=2"
run rownorm1k-default-2 $D/rownorm.mlir $S1 "partials=resident" ""
S8=M=16384,N=8192
run rms8k-cached $R $S8 "partials=0" ""
run rms8k-cached-launch $R $S8 "partials=0" "final=launch" --per-kernel
run rownorm8k-1cta $D/rownorm.mlir $S8 "partials=resident" "threads=256 staged-rows=4 min-ctas=1 grid=128"
S4=M=32768,N=4096
run rms4k-cached $R $S4 "partials=0" "threads=128"
run rms4k-cached-launch $R $S4 "partials=0" "threads=128 final=launch" --per-kernel
run rownorm4k-t128 $D/rownorm.mlir $S4 "partials=resident" "threads=128"
run ln1k-cached-launch $L $S1 "partials=0 splits=512" "rows-in-flight=2 staged-rows=4 final=launch" --per-kernel
run ln8k-cached-launch $L $S8 "partials=0" "final=launch" --per-kernel
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
