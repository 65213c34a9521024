# Issue 11, forty-third session, call 1, most telling first (a helper past DEADLINE is skipped):
# (a) the cooperative launch against a plain launch of the same kernel (.device-bin/exp/
#     morf-bench with MORF_EXP_PLAIN_COOP: 272311d with an uncommitted runtime experiment
#     whose grid barrier relies on the capped grid being resident);
# (b) the forty-second session's unrun call 3: the final in the last CTAs (final=tail) against
#     the final in the grid (final=grid, the default), one binary, alternating, round 1
#     checked against fp64;
# (c) flat partials without their workspace fill (this session) against the previous build
#     (.device-bin/old/morf-bench, 272311d), round 1 checked;
# (d) flat partials CTAs of whole warps (flat-warps=true: 800 threads at N = 100 and 200),
#     whose final joins the grid, against the default (200 threads, the final a launch);
# then second rounds of (b), (c), (d) and more shapes.
#   OUT=$OUT bash docs/perf-data/2026-12-07/issue11-s43/call1.sh
DEADLINE=${DEADLINE:-330} . tools/scripts/device-call.sh
echo "device $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" >> "$S"
for sz in M=65536,N=200 M=100003,N=100; do
  l=coop-${sz//[=,]/_}
  B=.device-bin/exp bench_cache "$l-coop" examples/rmsnorm_bwd.mlir "$sz" --runs 200 --no-check
  MORF_EXP_PLAIN_COOP=1 B=.device-bin/exp bench_cache "$l-plain" examples/rmsnorm_bwd.mlir "$sz" --runs 200 --no-check
done
ab() {  # label example sizes fuse-opts lower-opts round
  local l=$1 ex=$2 sz=$3 fo=$4 lo=$5 r=$6 ck
  ck=--no-check; [ "$r" = 1 ] && ck=""
  bench_pipeline "$l-grid$r" "examples/$ex.mlir" "$sz" "$fo" "$lo final=grid" --runs 100 $ck
  bench_pipeline "$l-tail$r" "examples/$ex.mlir" "$sz" "$fo" "$lo final=tail" --runs 100 $ck
}
RMS1K=("partials=resident splits=32" "chunk-major=true cluster=4 contract-fma=true grid=1056 interleave-splits=true min-ctas=2 reload=false remat-converts=true rows-in-flight=1 staged-rows=1")
LN1K=("partials=132" "contract-fma=true interleave-splits=true rows-in-flight=2 staged-rows=4")
tails() {  # round
  ab rms-M_65536_N_200 rmsnorm_bwd M=65536,N=200 partials=resident "" "$1"
  ab ln-M_100003_N_100 layernorm_bwd M=100003,N=100 partials=resident "" "$1"
  ab rms-M_65536_N_1024-cache rmsnorm_bwd M=65536,N=1024 "${RMS1K[0]}" "${RMS1K[1]}" "$1"
  ab ln-M_65536_N_1024-cache layernorm_bwd M=65536,N=1024 "${LN1K[0]}" "${LN1K[1]}" "$1"
}
fills() {  # round extra
  local r=$1; shift
  ab_binaries "fill$r-gelu-M_65536_N_200" examples/gelu_bwd_bias.mlir M=65536,N=200 partials=resident "" 1 --runs 100 "$@"
  ab_binaries "fill$r-tanh-M_100003_N_100" examples/tanh_bwd_bias.mlir M=100003,N=100 partials=resident "" 1 --runs 100 "$@"
  ab_binaries "fill$r-gelu-M_576000_N_384" examples/gelu_bwd_bias.mlir M=576000,N=384 partials=resident "" 1 --runs 100 "$@"
}
warps() {  # round extra
  local r=$1; shift
  ab_pipeline "warps$r-gelu-M_65536_N_200" examples/gelu_bwd_bias.mlir M=65536,N=200 partials=resident "" "flat-warps=true" 1 --runs 100 "$@"
  ab_pipeline "warps$r-tanh-M_100003_N_100" examples/tanh_bwd_bias.mlir M=100003,N=100 partials=resident "" "flat-warps=true" 1 --runs 100 "$@"
  ab_pipeline "warps$r-gelu-M_327680_N_100" examples/gelu_bwd_bias.mlir M=327680,N=100 partials=resident "" "flat-warps=true" 1 --runs 100 "$@"
}
tails 1
fills 1
warps 1
tails 2
fills 2 --no-check
warps 2 --no-check
ab ln-M_65536_N_200 layernorm_bwd M=65536,N=200 partials=resident "" 1
ab rms-M_100003_N_100 rmsnorm_bwd M=100003,N=100 partials=resident "" 1
ab rcs-M_65536_N_1024 row_col_stats M=65536,N=1024 partials=resident "" 1
ab smf-M_65536_N_200 softmax_fwd_colsum M=65536,N=200 partials=resident "" 1
finish
