#!/usr/bin/env bash
# Session 11 call 3: the benchmark rows with call 2's cache (morf-bench, 100 calls, the unfused
# pipeline and the copy kernel in the same process), Inductor's defaults in the same device
# call, then (deadline) the shapes outside the table that call 1 did not finish and
# compute-sanitizer on LayerNorm's tuned rows.
set -u
T0=$SECONDS
C=/tmp/h200-s11.json; [ -f $C ] || C=.device-bin/h200-s11.json
echo "cache: $C"
mkdir -p $OUT/logs $OUT/json
late() { [ $((SECONDS-T0)) -gt $1 ] && { echo "SKIPPED $2 (deadline)"; return 0; }; return 1; }
for f in rmsnorm_bwd layernorm_bwd; do
    late 300 "bench $f" && continue
    timeout 100 .device-bin/morf-bench examples/$f.mlir --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 \
        --sizes M=16384,N=8192 --unfused --no-check --runs 100 --warmup 10 --tuning-cache $C --json $OUT/json/bench-$f.json \
        >$OUT/logs/bench-$f.txt 2>$OUT/logs/bench-$f.log
    echo "== bench $f rc=$? t=$((SECONDS-T0)) $(grep -o 'copy: .*' $OUT/logs/bench-$f.log)"; grep -E '^\| [0-9]' $OUT/logs/bench-$f.txt
    grep -o "tuned schedule for bucket.*\|no tuning entry.*" $OUT/logs/bench-$f.log | sed 's/^/   /'
done
for op in rms ln; do
    late 420 "peers $op" && continue
    (cd .device-bin/peers && ONLY_INDUCTOR=1 SHAPES=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16 timeout 80 python3 anchors.py $op) \
        >$OUT/peers-$op.txt 2>$OUT/logs/peers-$op.log
    echo "== Inductor default $op rc=$? t=$((SECONDS-T0))"; tail -8 $OUT/peers-$op.txt
done
for f in rmsnorm_bwd layernorm_bwd; do
    late 500 "$f 1000000x256" && continue
    timeout 45 .device-bin/morf-bench examples/$f.mlir --sizes M=1000000,N=256 --unfused --no-check --runs 100 --warmup 10 \
        --json $OUT/json/bench-$f-1000000.json >$OUT/logs/bench-$f-1000000.txt 2>$OUT/logs/bench-$f-1000000.log
    echo "== $f 1000000x256 rc=$? t=$((SECONDS-T0))"; grep -E '^\| [0-9]' $OUT/logs/bench-$f-1000000.txt
done
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for s in M=576000,N=384 M=65536,N=1024; do
    for tool in memcheck racecheck; do
        late 540 "$tool layernorm_bwd $s" && continue
        timeout 60 $SAN --tool $tool --error-exitcode 9 .device-bin/morf-run examples/layernorm_bwd.mlir --device gpu \
            --random $s --tuning-cache $C --output-dir /tmp/san-out >$OUT/logs/san.log 2>&1
        echo "$tool layernorm_bwd $s rc=$? $(grep -o 'ERROR SUMMARY: [0-9]* error[s]*\|RACECHECK SUMMARY: [0-9]* hazard[^ ]* [^ ]*' $OUT/logs/san.log | head -1)"
    done
done
tar czf $OUT/raw.tgz -C $OUT logs json && rm -rf $OUT/logs $OUT/json
