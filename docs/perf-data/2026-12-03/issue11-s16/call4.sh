# Issue 11, sixteenth session, call 4: a warp per row's column partials in its shared
# partial rows instead of registers (`shared-accs=true` on a warp-per-row kernel), against
# the register accumulators, alternating; one fp64 check.
set -u
B=.device-bin
T0=$(date +%s)
left() { echo $(( 545 - ($(date +%s) - T0) )); }
mkdir -p $OUT/logs $OUT/json
S=$OUT/summary.txt
: > $S
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
run() { # label example sizes fuse-opts lower-opts extra...
  local l=$1 e=$2 sz=$3 fo=$4 lo=$5; shift 5
  [ $(left) -lt 40 ] && { echo "$l: skipped (deadline)" >> $S; return; }
  timeout 60 $B/morf-bench examples/$e.mlir --tuning-cache none --fused-pipeline "$(tp "$fo" "$lo")" --sizes $sz --warmup 10 --runs 100 \
    --json $OUT/json/$l.json "$@" > $OUT/logs/$l.txt 2>&1
  echo "$l rc=$?: $(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1) $(grep -E '^\| [0-9]' $OUT/logs/$l.txt | awk -F'|' '{print $8}') $(grep -o 'check result[0-9]*: rel_err=[^ ]* ([^)]*) [a-z]*' $OUT/logs/$l.txt | tr '\n' ' ')" >> $S
}
ab() { # label example sizes fuse-opts lower-opts-of-register-accs lower-opts-of-shared-accs
  run $1-reg $2 $3 "$4" "$5" --no-check
  run $1-sh $2 $3 "$4" "$6" --no-check
  run $1-reg-2 $2 $3 "$4" "$5" --no-check
  run $1-sh-2 $2 $3 "$4" "$6" --no-check
}
ab rms1k-rif1 rmsnorm_bwd M=65536,N=1024 "partials=0 splits=512" "rows-in-flight=2" "rows-in-flight=1 shared-accs=true"
run rms1k-sh-rif2 rmsnorm_bwd M=65536,N=1024 "partials=0 splits=512" "rows-in-flight=2 shared-accs=true" --no-check
run rms1k-sh-p264 rmsnorm_bwd M=65536,N=1024 "partials=264" "rows-in-flight=1 shared-accs=true" --no-check
ab ln1k layernorm_bwd M=65536,N=1024 "partials=0 splits=512" "rows-in-flight=2 staged-rows=4" "rows-in-flight=1 shared-accs=true"
run ln1k-sh-staged layernorm_bwd M=65536,N=1024 "partials=0 splits=512" "staged-rows=4 shared-accs=true" --no-check
ab rms768 rmsnorm_bwd M=32768,N=768 "partials=resident" "" "rows-in-flight=1 shared-accs=true"
ab ln768 layernorm_bwd M=32768,N=768 "partials=resident" "" "rows-in-flight=1 shared-accs=true"
ab rms256 rmsnorm_bwd M=131072,N=256 "partials=resident" "" "shared-accs=true"
ab rms576k rmsnorm_bwd M=576000,N=384 "partials=528 splits=256" "threads-per-row=16 rows-in-flight=1" "threads-per-row=16 rows-in-flight=1 shared-accs=true"
ab ln576k layernorm_bwd M=576000,N=384 "partials=264 splits=256" "staged-rows=4" "staged-rows=4 shared-accs=true"
ab rms262k rmsnorm_bwd M=262144,N=768 "partials=resident" "" "rows-in-flight=1 shared-accs=true"
run chk-rms1k-sh rmsnorm_bwd M=65536,N=1024 "partials=0 splits=512" "rows-in-flight=1 shared-accs=true" --runs 20
run chk-ln768-sh layernorm_bwd M=32768,N=768 "partials=resident" "rows-in-flight=1 shared-accs=true" --runs 20
cd $OUT && tar czf raw.tgz logs json && rm -rf logs json; cd - > /dev/null
cat $S
