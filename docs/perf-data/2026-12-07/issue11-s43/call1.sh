# Issue 11, forty-third session, call 1. Two A/Bs in one call:
# (1) flat partials without their workspace fill (this session: a bias gradient's short-row
#     partial kernel stores its sums and the identity of the rows past its grid, the host's
#     memset goes): .device-bin/old (HEAD 272311d) against this build, two rounds, round 1
#     checked against fp64;
# (2) the forty-second session's unrun call 3: the final in the last CTAs (final=tail)
#     against the final in the grid (final=grid, the default), one binary, alternating, two
#     rounds (round 1 checked), then the cooperative launch against a plain launch of the
#     same kernel (.device-bin/exp/morf-bench with MORF_EXP_PLAIN_COOP: an uncommitted
#     experiment whose grid barrier relies on the capped grid being resident).
# Between them (3), below.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s43/call1.sh
DEADLINE=${DEADLINE:-330} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for sz in M=65536,N=200 M=262144,N=64 M=576000,N=384; do
  ab_binaries "fill-gelu-${sz//[=,]/_}" examples/gelu_bwd_bias.mlir "$sz" partials=resident "" 1 --runs 100
done
ab_binaries fill-tanh-M_100003_N_100 examples/tanh_bwd_bias.mlir M=100003,N=100 partials=resident "" 1 --runs 100
for sz in M=65536,N=200 M=262144,N=64 M=576000,N=384; do
  ab_binaries "fill-gelu-${sz//[=,]/_}-r2" examples/gelu_bwd_bias.mlir "$sz" partials=resident "" 1 --runs 100 --no-check
done
ab_binaries fill-tanh-M_100003_N_100-r2 examples/tanh_bwd_bias.mlir M=100003,N=100 partials=resident "" 1 --runs 100 --no-check
# (3) flat partials CTAs of whole warps (flat-warps=true: 800 threads at N = 100 and 200), whose
#     final joins the grid, against the default CTAs (200 threads, the final a launch).
for r in 1 2; do
  ck=--no-check; [ "$r" = 1 ] && ck=""
  ab_pipeline "warps$r-gelu-M_65536_N_200" examples/gelu_bwd_bias.mlir M=65536,N=200 partials=resident "" "flat-warps=true" 1 --runs 100 $ck
  ab_pipeline "warps$r-tanh-M_100003_N_100" examples/tanh_bwd_bias.mlir M=100003,N=100 partials=resident "" "flat-warps=true" 1 --runs 100 $ck
  ab_pipeline "warps$r-gelu-M_327680_N_100" examples/gelu_bwd_bias.mlir M=327680,N=100 partials=resident "" "flat-warps=true" 1 --runs 100 $ck
done
ab() {  # label example sizes fuse-opts lower-opts
  local l=$1 ex=$2 sz=$3 fo=$4 lo=$5 r ck
  for r in 1 2; do
    ck=--no-check; [ "$r" = 1 ] && ck=""
    bench_pipeline "$l-grid$r" "examples/$ex.mlir" "$sz" "$fo" "$lo final=grid" --runs 100 $ck
    bench_pipeline "$l-tail$r" "examples/$ex.mlir" "$sz" "$fo" "$lo final=tail" --runs 100 $ck
  done
}
for sz in M=65536,N=200 M=100003,N=100 M=32768,N=768; do
  ab "rms-${sz//[=,]/_}" rmsnorm_bwd $sz partials=resident ""
  ab "ln-${sz//[=,]/_}" layernorm_bwd $sz partials=resident ""
done
ab rms-M_65536_N_1024-cache rmsnorm_bwd M=65536,N=1024 "partials=resident splits=32" "chunk-major=true cluster=4 contract-fma=true grid=1056 interleave-splits=true min-ctas=2 reload=false remat-converts=true rows-in-flight=1 staged-rows=1"
ab ln-M_65536_N_1024-cache layernorm_bwd M=65536,N=1024 "partials=132" "contract-fma=true interleave-splits=true rows-in-flight=2 staged-rows=4"
ab smf-M_65536_N_200 softmax_fwd_colsum M=65536,N=200 partials=resident ""
ab rcs-M_65536_N_1024 row_col_stats M=65536,N=1024 partials=resident ""
ab rms-M_576000_N_384-cache rmsnorm_bwd M=576000,N=384 "partials=528 splits=256" "interleave-splits=true rows-in-flight=1 threads-per-row=16"
for sz in M=65536,N=200 M=100003,N=100; do
  l=coop-${sz//[=,]/_}
  B=.device-bin/exp bench_cache "$l-coop" examples/rmsnorm_bwd.mlir "$sz" --runs 200 --no-check
  MORF_EXP_PLAIN_COOP=1 B=.device-bin/exp bench_cache "$l-plain" examples/rmsnorm_bwd.mlir "$sz" --runs 200 --no-check
done
finish
