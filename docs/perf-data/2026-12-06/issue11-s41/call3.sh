# Issue 11, forty-first session, call 3: the split-K partials' rows in groups of four and one
# reciprocal a row for a vector divided by one value (this session's build, .device-bin/s41)
# against the build before them (.device-bin: 8ead763's modules), the unfused programs
# with every launch also timed on its own (`--per-kernel`), one round, 50 calls.
#   OUT=$OUT bash docs/perf-data/2026-12-06/issue11-s41/call3.sh
B=.device-bin/s41 OLD=.device-bin DEADLINE=${DEADLINE:-570} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for sz in M=65536,N=200 M=100003,N=100 M=8388608,N=3 M=65536,N=1024 M=576000,N=384; do
  ck=--no-check; case $sz in M=65536,N=200|M=100003,N=100) ck="";; esac
  for ex in softmax_fwd_colsum rmsnorm_bwd layernorm_bwd colmax_rowsum gelu_bwd_bias; do
    ab_text "unf-$ex-${sz//[=,]/_}" "examples/$ex.mlir" "$sz" gpu-unfused 1 --runs 50 --per-kernel $ck
  done
done
finish
