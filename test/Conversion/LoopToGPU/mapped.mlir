// The mapped lowering (docs/conversion-loop-to-gpu.md, "Mapped lowering"): a nest with a
// `mapping` attribute becomes a kernel that follows it level by level, and computes what the
// interpreter computes on the simulator, for any sizes (tails, grids larger than the work).
// REQUIRES: numpy
//
// A row per warp: grid-stride tiles, warp-strided rows with the exact tail bound, lane
// partials, a warp reduction, the row's store by lane 0, the inner parallel lane-strided.
// RUN: morf-opt %S/Inputs/mapped-row.mlir --lower-loop-to-gpu | FileCheck %s --check-prefix=ROW
// ROW:      mgpu.launch @row_kernel_k0 blocks(%{{.*}}) threads(%[[T:.*]]) shared
// ROW:      mgpu.func @row_kernel_k0({{.*}}) kernel attributes {max_threads = 256, min_ctas_per_sm = 3, min_ctas_planned, morf.schedule = "Mapped threads=256 grid<=3 {{.*}}warp{{.*}}lane{{.*}}"}
// ROW-DAG:  %[[BID:.*]] = mgpu.block_id : index
// ROW-DAG:  %[[GD:.*]] = mgpu.grid_dim : index
// ROW-DAG:  %[[WID:.*]] = mgpu.warp_id : index
// ROW-DAG:  %[[LID:.*]] = mgpu.lane_id : index
// ROW-DAG:  %[[FIRST:.*]] = mloop.cmp eq, %[[LID]], %{{.*}} : index
// ROW:      mloop.for %{{.*}} = %[[BID]] to %{{.*}} step %[[GD]] {
// ROW:        mloop.for %{{.*}} = %[[WID]] to %{{.*}} step %{{.*}} {
// ROW:          mloop.for %{{.*}} = %[[LID]] to %{{.*}} step %{{.*}} iter_args
// ROW:          mgpu.warp_reduce sum
// ROW:          mgpu.if %[[FIRST]] {
// ROW-NEXT:       mgpu.store
// ROW:          mloop.for %{{.*}} = %[[LID]] to %{{.*}} step %{{.*}} {
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/mapped-row.mlir 'builtin.module(lower-loop-to-gpu)' M=40,N=67 1e-5 %t/0
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/mapped-row.mlir 'builtin.module(lower-loop-to-gpu)' M=1,N=1 1e-5 %t/1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/mapped-row.mlir 'builtin.module(lower-loop-to-gpu)' M=3,N=2000 1e-5 %t/2
//
// A CTA per row (a block reduction with barriers), a seq loop, a thread-strided inner
// parallel; column sums with a seq row loop around a grid-stride column loop.
// RUN: morf-opt %S/Inputs/mapped-cta.mlir --lower-loop-to-gpu | FileCheck %s --check-prefix=CTA
// CTA:      mgpu.func @cta_k0({{.*}}) kernel attributes {max_threads = 96,
// CTA:        mgpu.warp_reduce max
// CTA:        mgpu.barrier
// CTA:        mgpu.barrier
// CTA:      mgpu.func @cta_k1({{.*}}) kernel attributes {max_threads = 1,
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/mapped-cta.mlir 'builtin.module(lower-loop-to-gpu)' M=5,N=300 1e-5 %t/3
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/mapped-cta.mlir 'builtin.module(lower-loop-to-gpu)' M=1,N=7 1e-5 %t/4
//
// The schedule report says where the mapping came from, and the width of the lane loops'
// vector steps (docs/conversion-loop-to-gpu.md, "Vectors in the looped form").
// RUN: morf-opt %S/Inputs/mapped-row.mlir --lower-loop-to-gpu --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// REPORT: mapped-row.mlir:{{[0-9]+}}:3: schedule: @row_kernel_k0: mapped threads=256 grid<=3 [{level = "grid", persistent = true, size = 3}] > [{level = "warp", size = 8}] > reduce [{level = "lane"}] > [{level = "lane", size = 32}] (from the IR)
// REPORT-NEXT: note: @row_kernel_k0: looped form, the row's loops in order: 4-element vectors; 4-element vectors
//
// loop-map then lower-loop-to-gpu on examples, with tiny CTAs and grids.
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_fwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,loop-map{threads=64 warps=2 grid=2},lower-loop-to-gpu)' M=37,N=70 1e-2 %t/5
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,loop-map{rows=cta threads=64},lower-loop-to-gpu)' M=9,N=100 1e-5 %t/6
// With fusion: the row-fused nest (column partials per split of rows) on a CTA per split.
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd_f32.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{default-hint=1000000 device=launch=1e-3},canonicalize,cse,loop-map{threads=64 grid=2},lower-loop-to-gpu)' M=37,N=70 1e-5 %t/7
//
// What the lowering cannot follow: a located error.
// RUN: morf-opt %s --lower-loop-to-gpu --verify-diagnostics

func.func @prod_over_lanes(%x: !mloop.buffer<?x?xf32>, %s: !mloop.buffer<?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %one = mloop.constant 1.0 : f32
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // expected-error@+1 {{'mloop.reduce' op a 'lane' reduction of kind 'prod' over 'f32' has no GPU lowering (sum, max or min of a float)}}
    %r = mloop.reduce prod (%j) = (%c0) to (%n) step (%c1) init(%one) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    } attributes {mapping = [{level = "lane"}]}
    mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {mapping = [{level = "warp"}]}
  return
}
