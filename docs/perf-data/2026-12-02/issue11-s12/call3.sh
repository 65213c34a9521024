#!/usr/bin/env bash
# Session 12 call 3: morf-tune on the knobs call 2 did not reach for the small-floor shapes
# (warm start from call 2's winners), and on the reload form at 4096 x 16384; then
# compute-sanitizer (memcheck, racecheck) on the reload kernels (4096x16384, the odd shape
# 2048x12288) and on the eleventh session's tuned RMSNorm program (576000x384,
# partials=528 threads-per-row=16; 1000003x384 in its bucket), each also checked against fp64
# where the interpreter allows.
set -u
T0=$SECONDS
mkdir -p $OUT/logs $OUT/json
late() { [ $((SECONDS-T0)) -gt $1 ] && { echo "SKIPPED $2 (deadline)"; return 0; }; return 1; }
B=.device-bin
C=/tmp/c.json; cp $B/s12-cache.json $C; chmod u+w $C
t() { # file sizes knobs trials deadline
    local f=$1 s=$2 k=$3 n=$4 d=$5 l=$1-${2//[=,]/_}
    late $d "tune $l" && return
    timeout 80 $B/morf-tune examples/$f.mlir --sizes $s --cache $C --warm-start --knobs $k --rounds 1 --max-trials $n \
        --runs 20 --final-runs 40 --json $OUT/json/tune-$l.json >$OUT/logs/tune-$l.txt 2>$OUT/logs/tune-$l.log
    echo "== tune $l rc=$? t=$((SECONDS-T0))"; grep -E '^\| M' $OUT/logs/tune-$l.txt | tail -1
    grep -o "trial [0-9]*: .*" $OUT/logs/tune-$l.log | cut -c1-110 | sed 's/^/   /'
}
K=rows-in-flight,min-ctas,final,staged-rows,reload
t rmsnorm_bwd M=32768,N=768 $K 10 20
t layernorm_bwd M=32768,N=768 $K 10 60
t rmsnorm_bwd M=131072,N=256 $K 10 100
K2=staged-rows,threads,min-ctas,splits,partials
t rmsnorm_bwd M=4096,N=16384 $K2 12 140
t layernorm_bwd M=4096,N=16384 $K2 12 190
cp $C $OUT/json/cache.json
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
san() { # tool file sizes deadline [--check]
    local tool=$1 f=$2 s=$3 d=$4; shift 4
    late $d "$tool $f $s" && return
    timeout 75 $SAN --tool $tool --error-exitcode 9 $B/morf-run examples/$f.mlir --device gpu --random $s "$@" \
        --output-dir /tmp/san-out >$OUT/logs/san-$tool-$f-${s//[=,]/_}.log 2>&1
    echo "$tool $f $s rc=$? $(grep -o 'ERROR SUMMARY: [0-9]* error[s]*\|RACECHECK SUMMARY: [0-9]* hazard[^ ]* [^ ]*' $OUT/logs/san-$tool-$f-${s//[=,]/_}.log | head -1) $(grep -c 'check result.*ok' $OUT/logs/san-$tool-$f-${s//[=,]/_}.log) ok-checks"
}
for f in rmsnorm_bwd layernorm_bwd; do
    san memcheck $f M=4096,N=16384 250 --check
    san racecheck $f M=4096,N=16384 280
    san memcheck $f M=2048,N=12288 300 --check
    san racecheck $f M=2048,N=12288 320
done
san memcheck rmsnorm_bwd M=1000003,N=384 340
san memcheck rmsnorm_bwd M=576000,N=384 370
san racecheck rmsnorm_bwd M=576000,N=384 400
tar czf $OUT/raw.tgz -C $OUT logs json && rm -rf $OUT/logs $OUT/json
