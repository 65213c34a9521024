# Issue 11, forty-second session, call 3: the final in the last CTAs (final=tail) against the
# final in the grid (final=grid, the default), one binary, alternating, two rounds (round 1
# checked against fp64). Call 1 (H100) put the short-row calls 8.3-8.4 us over ncu's time of
# their one cooperative kernel (RMSNorm backward 65536 x 200: 43.6 us a call, 35.2 of kernel;
# LayerNorm 100003 x 100: 35.2, 26.9). `final=tail` launches the same kernel plainly: each CTA
# takes a ticket when its rows are done; the last 132 go on to the final, the rest return.
# The A/B over short rows, the read-only family and three cached table rows (their cache
# entries spelled out, + final); last, the cooperative launch against a plain launch of the
# very same kernel (.device-bin/exp/morf-bench, MORF_EXP_PLAIN_COOP: an uncommitted
# experiment, whose grid barrier relies on the capped grid being resident).
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s42/call3.sh
DEADLINE=${DEADLINE:-200} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
ab() {  # label example sizes fuse-opts lower-opts
  local l=$1 ex=$2 sz=$3 fo=$4 lo=$5 r ck
  for r in 1 2; do
    ck=--no-check; [ "$r" = 1 ] && ck=""
    bench_pipeline "$l-grid$r" "examples/$ex.mlir" "$sz" "$fo" "$lo final=grid" --runs 100 $ck
    bench_pipeline "$l-tail$r" "examples/$ex.mlir" "$sz" "$fo" "$lo final=tail" --runs 100 $ck
  done
}
for ex in rmsnorm_bwd layernorm_bwd; do
  for sz in M=65536,N=200 M=100003,N=100 M=262144,N=64 M=32768,N=768; do
    ab "$ex-${sz//[=,]/_}" $ex $sz partials=resident ""
  done
done
ab gelu-M_65536_N_200 gelu_bwd_bias M=65536,N=200 partials=resident ""
ab smf-M_65536_N_200 softmax_fwd_colsum M=65536,N=200 partials=resident ""
ab colmax-M_65536_N_1024 colmax_rowsum M=65536,N=1024 partials=resident ""
ab rcs-M_65536_N_1024 row_col_stats M=65536,N=1024 partials=resident ""
ab rms-M_65536_N_1024-cache rmsnorm_bwd M=65536,N=1024 "partials=resident splits=32" "chunk-major=true cluster=4 contract-fma=true grid=1056 interleave-splits=true min-ctas=2 reload=false remat-converts=true rows-in-flight=1 staged-rows=1"
ab ln-M_65536_N_1024-cache layernorm_bwd M=65536,N=1024 "partials=132" "contract-fma=true interleave-splits=true rows-in-flight=2 staged-rows=4"
ab rms-M_576000_N_384-cache rmsnorm_bwd M=576000,N=384 "partials=528 splits=256" "interleave-splits=true rows-in-flight=1 threads-per-row=16"
for sz in M=65536,N=200 M=100003,N=100; do
  l=coop-${sz//[=,]/_}
  B=.device-bin/exp bench_cache "$l-coop" examples/rmsnorm_bwd.mlir "$sz" --runs 200 --no-check
  MORF_EXP_PLAIN_COOP=1 B=.device-bin/exp bench_cache "$l-plain" examples/rmsnorm_bwd.mlir "$sz" --runs 200 --no-check
done
finish
