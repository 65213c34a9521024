# Issue 11, forty-fourth session, call 2 (call 1 was the forty-third session's script,
# docs/perf-data/2026-12-07/issue11-s43/call1.sh, run this session):
# (a) rows in flight that load the row's per-row scalars (rstd, mean) one row ahead too
#     (this session): base, rows-in-flight=2, with min-ctas=3 and 4, and min-ctas=4 alone, at
#     short and mid rows of RMSNorm and LayerNorm backward (fused, no cache), round 1 checked;
# (b) flat-warps=true against the default at more bias-gradient shapes;
# (c) ncu of the two-rows-in-flight kernel at 65536 x 200;
# then a second round of (a).
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s44/call2.sh
DEADLINE=${DEADLINE:-420} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
rif() {  # round
  local r=$1 ck ex sz l lo v
  ck=--no-check; [ "$r" = 1 ] && ck=""
  for ex in rmsnorm_bwd layernorm_bwd; do
    for sz in M=65536,N=200 M=131072,N=256 M=100003,N=100 M=32768,N=768; do
      l=$ex-${sz//[=,]/_}
      for v in base:"" rif2:"rows-in-flight=2" rif2mc3:"rows-in-flight=2 min-ctas=3" rif2mc4:"rows-in-flight=2 min-ctas=4" mc4:"min-ctas=4"; do
        lo=${v#*:}
        bench_pipeline "$l-${v%%:*}$r" "examples/$ex.mlir" "$sz" partials=resident "$lo" --runs 100 $ck
      done
    done
  done
}
rif 1
for sz in M=65536,N=300 M=262144,N=100 M=100003,N=150 M=262144,N=72 M=65536,N=200; do
  ab_pipeline "warps-gelu-${sz//[=,]/_}" examples/gelu_bwd_bias.mlir "$sz" partials=resident "" "flat-warps=true" 1 --runs 100
done
ab_pipeline "warps-tanh-M_65536_N_200" examples/tanh_bwd_bias.mlir M=65536,N=200 partials=resident "" "flat-warps=true" 1 --runs 100
ncu_profile ncu-rms200-rif2mc3 examples/rmsnorm_bwd.mlir rmsnorm_bwd_k0 M=65536,N=200 \
  "$(pipeline partials=resident "rows-in-flight=2 min-ctas=3")"
rif 2
finish
