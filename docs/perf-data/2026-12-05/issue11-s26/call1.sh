# Session 26, call 1 (prepared, NOT RUN: no device was lent in session 26): the register relief
# and the streamed staging ring (docs/conversion-loop-to-gpu.md, "Register relief where ptxas
# spilled" and "Streamed loads"), each timed against the build before them (173fd36), in
# alternating rounds, checked against fp64.
#
# Before the call, here (not on the device), build both and copy them into the carried folder:
#   cargo build --release -p morf-bench -p morf-run -p morf-opt -p morf-tune
#   mkdir -p .device-bin/old && cp target/release/morf-{bench,run,opt,tune} .device-bin/
#   cp runtime/engine/src/tuning/h200.json .device-bin/
#   git worktree add /tmp/morf-old 173fd36 && (cd /tmp/morf-old && cargo build --release -p morf-bench)
#   cp /tmp/morf-old/target/release/morf-bench .device-bin/old/
# Then, from the repository root on the H200 (carry: [".device-bin"]):
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s26/call1.sh
DEADLINE=540 . tools/scripts/device-call.sh
P=partials=resident
# 1. The reload form's row-invariant vectors, coherent (f32 rows spilled 68-100 bytes before).
ab_binaries coh-rmsnorm_bwd_f32-4096x16384 examples/rmsnorm_bwd_f32.mlir M=4096,N=16384 "$P" "" 2 --runs 100
ab_binaries coh-layernorm_bwd_f32-4096x16384 examples/layernorm_bwd_f32.mlir M=4096,N=16384 "$P" "" 2 --runs 100
# A cluster per row without a cache entry (8 bytes spilled before).
ab_binaries coh-layernorm_bwd-8192x32768 examples/layernorm_bwd.mlir M=8192,N=32768 "$P" "" 1 --runs 50
# 2. Early accumulates for an f32 row held under a tight cap (40 bytes spilled before).
ab_binaries early-rmsnorm_bwd_f32-32768x768 examples/rmsnorm_bwd_f32.mlir M=32768,N=768 "$P" "" 2 --runs 100
ab_binaries early-layernorm_bwd_f32-32768x4096 examples/layernorm_bwd_f32.mlir M=32768,N=4096 "$P" "" 1 --runs 100
# 3. The merged final's loads in flight at N = 2 (8 bytes spilled before).
for e in rmsnorm_bwd softmax_bwd_colsum; do
  ab_binaries final-$e-8388608x2 examples/$e.mlir M=8388608,N=2 "$P" "" 2 --runs 100
done
# 4. The staging ring's copies streamed (evict-first) for the read-only family's CTA per row.
for e in colmax_rowsum row_col_stats; do
  ab_binaries ring-$e-16384x8192 examples/$e.mlir M=16384,N=8192 "$P" "" 2 --runs 100
  ab_binaries ring-$e-4096x16384 examples/$e.mlir M=4096,N=16384 "$P" "" 1 --runs 100
done
ab_binaries ring-reduce3d-16x1024x8192 examples/reduce3d.mlir B=16,M=1024,N=8192 "$P" "" 2 --runs 100
# A benchmark row whose PTX did not change, as the control (within noise).
ab_binaries control-rmsnorm_bwd-65536x1024 examples/rmsnorm_bwd.mlir M=65536,N=1024 "$P" "" 1 --runs 100
finish
