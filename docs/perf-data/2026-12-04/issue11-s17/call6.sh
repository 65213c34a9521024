# Issue 11, seventeenth session, call 6: early accumulates (0904d46) against the binary before
# them (b8eb1a7's, in .device-bin/old), alternating, cached schedules; then the schedules the
# freed registers open at N = 1024 and 768 (a warp per row, one row in flight, column partials
# in shared memory: 120-126 registers, two CTAs of 256 a SM), and fp64 checks.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 520 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
C=$B/h200.json
bench() { # label binary-dir example sizes timeout extra...
  local l=$1 bd=$2 e=$3 sz=$4 to=$5; shift 5
  [ $(left) -lt $(( to + 10 )) ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout $to $bd/morf-bench examples/$e.mlir --tuning-cache $C --sizes $sz --warmup 10 --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us\|check result[0-9]*: rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ') $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
for r in 1 2; do
  for cfg in rmsnorm_bwd:M=65536,N=1024 layernorm_bwd:M=65536,N=1024 rmsnorm_bwd:M=16384,N=8192 layernorm_bwd:M=16384,N=8192 \
      rmsnorm_bwd:M=32768,N=4096 layernorm_bwd:M=32768,N=4096; do
    e=${cfg%%:*}; sz=${cfg#*:}
    bench ab-$e-$sz-old-$r $B/old $e $sz 30 --runs 100 --no-check
    bench ab-$e-$sz-new-$r $B $e $sz 30 --runs 100 --no-check
  done
done
for cfg in rmsnorm_bwd:M=576000,N=384 layernorm_bwd:M=576000,N=384; do
  e=${cfg%%:*}; sz=${cfg#*:}
  bench ab-$e-$sz-old-1 $B/old $e $sz 30 --runs 100 --no-check
  bench ab-$e-$sz-new-1 $B $e $sz 30 --runs 100 --no-check
done
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label example sizes fuse-opts lower-opts extra...
  local l=$1 e=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 40 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 40 $B/morf-bench examples/$e.mlir --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us\|check result[0-9]*: rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ') $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}')" >> $S
}
for e in rmsnorm_bwd layernorm_bwd; do
  for fo in "partials=resident" "partials=0 splits=512" "partials=resident*2"; do
    for lo in "rows-in-flight=1 shared-accs=true" "rows-in-flight=1 shared-accs=true min-ctas=2" "rows-in-flight=1"; do
      run sh-$e-1k-${fo//[ =*]/_}-${lo//[ =]/_} $e M=65536,N=1024 "$fo" "$lo" --runs 100 --no-check
    done
  done
done
for e in rmsnorm_bwd layernorm_bwd; do
  for sz in M=32768,N=768 M=262144,N=768; do
    run sh-$e-$sz-default $e $sz "partials=resident" "" --runs 100 --no-check
    run sh-$e-$sz-shared $e $sz "partials=resident" "rows-in-flight=1 shared-accs=true" --runs 100 --no-check
  done
done
# fp64 checks (every output against the fp64 interpreter) of the shared-accumulator schedules.
run chk-rms-1k rmsnorm_bwd M=65536,N=1024 "partials=resident" "rows-in-flight=1 shared-accs=true" --runs 20
run chk-ln-1k layernorm_bwd M=65536,N=1024 "partials=resident" "rows-in-flight=1 shared-accs=true" --runs 20
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
