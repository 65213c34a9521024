# Issue 11, eighteenth session, call 2: clocks and power while a kernel runs back to back.
# ncu (fifteenth session, clocks not locked) timed the RMSNorm 16384 x 8192 kernel at 207.7 us
# where morf-bench's back-to-back median is 221: is the sustained kernel power- or
# clock-limited? nvidia-smi is sampled every 100 ms during 20000 calls of each kernel and
# during torch copies of the same traffic.
set -u
B=.device-bin
mkdir -p $OUT/logs
S=$OUT/summary.txt
: > $S
Q=clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu,temperature.memory,clocks_event_reasons.active
sample() { # label command...
  local l=$1; shift
  nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 100 > $OUT/logs/smi-$l.csv 2>&1 &
  local p=$!
  "$@" > $OUT/logs/$l.txt 2>&1
  kill $p; wait $p 2>/dev/null
  # drop the first and last 10 samples (ramp), then min/median/max of the clock and power
  python3 - $OUT/logs/smi-$l.csv "$l" "$(grep -o 'median [0-9.]* us' $OUT/logs/$l.txt | head -1)" >> $S <<'PY'
import sys, statistics as st
rows=[r.split(', ') for r in open(sys.argv[1]) if r.count(',')>=6]
rows=rows[10:-10] or rows
def col(i): return [float(r[i]) for r in rows if r[i].replace('.','',1).isdigit()]
sm, mem, pw = col(0), col(1), col(2)
reasons = sorted(set(r[6].strip() for r in rows))
f=lambda v: f"{min(v):.0f}/{st.median(v):.0f}/{max(v):.0f}" if v else "-"
print(f"{sys.argv[2]:<12} {sys.argv[3]:<18} n={len(rows)} sm MHz {f(sm)} mem MHz {f(mem)} W {f(pw)} limit {rows[0][3] if rows else '-'} temp {rows[-1][4] if rows else '-'} reasons {reasons}")
PY
}
tp() { echo "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{$1},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{$2})"; }
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE > $OUT/logs/smi-q-before.txt 2>&1
sample idle sleep 3
sample rms8k $B/morf-bench examples/rmsnorm_bwd.mlir --sizes M=16384,N=8192 --warmup 10 --runs 20000 --no-check
sample ln8k $B/morf-bench examples/layernorm_bwd.mlir --sizes M=16384,N=8192 --warmup 10 --runs 20000 --no-check
sample rms1k $B/morf-bench examples/rmsnorm_bwd.mlir --sizes M=65536,N=1024 --warmup 10 --runs 30000 --no-check
sample rms384 $B/morf-bench examples/rmsnorm_bwd.mlir --sizes M=576000,N=384 --warmup 10 --runs 12000 --no-check
sample ln384 $B/morf-bench examples/layernorm_bwd.mlir --sizes M=576000,N=384 --warmup 10 --runs 12000 --no-check
sample copy python3 -c "
import torch
a=torch.ones(2**26*3,dtype=torch.bfloat16,device='cuda'); b=torch.empty_like(a)
s=torch.cuda.Event(enable_timing=True); e=torch.cuda.Event(enable_timing=True)
for i in range(50): b.copy_(a)
s.record()
for i in range(20000): b.copy_(a)
e.record(); torch.cuda.synchronize(); print('median %.1f us (mean of 20000 copies of 402 MB: 805 MB of traffic)' % (s.elapsed_time(e)*1000/20000))
"
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE > $OUT/logs/smi-q-after.txt 2>&1
cd $OUT && tar czf raw.tgz logs && rm -rf logs; cd - > /dev/null
cat $S
