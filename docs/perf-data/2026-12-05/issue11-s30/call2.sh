# Session 30, call 2: the split's shared partials combined by a group of lanes a column where
# a CTA has many row slots and few columns (flush_lanes: N <= threads / 2), against the serial
# form (a thread a column walking every slot: 256 dependent shared loads at N = 2).
# .device-bin/old holds the build before (9d1b288); .device-bin the new one.
#   OUT=$OUT DEADLINE=420 bash docs/perf-data/2026-12-05/issue11-s30/call2.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
while read -r l e s r; do
  ab_binaries "$l" "examples/$e.mlir" "$s" "partials=resident" "" "$r" --runs 100
done <<LIST
rms8m2 rmsnorm_bwd M=8388608,N=2 2
ln8m2 layernorm_bwd M=8388608,N=2 2
rms4m4 rmsnorm_bwd M=4194304,N=4 1
smb8m2 softmax_bwd_colsum M=8388608,N=2 1
cmr8m2 colmax_rowsum M=8388608,N=2 1
ln1m16 layernorm_bwd M=1000000,N=16 1
rms1m64 rmsnorm_bwd M=1000000,N=64 1
rcs1m64 row_col_stats M=1000000,N=64 1
LIST
P="builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)"
sanitize_text san-rms2 examples/rmsnorm_bwd.mlir M=1031,N=2 "${P%)}{size-hints=M=1031,N=2})"
sanitize_text san-ln16 examples/layernorm_bwd.mlir M=777,N=16 "${P%)}{size-hints=M=777,N=16})"
finish
