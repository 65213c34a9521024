// A morf.schedule attribute edited by hand changes the kernel lower-loop-to-gpu emits, and
// the kernel still computes the same results on the simulator.
// REQUIRES: numpy
//
// A row reduction at 128 threads (4 warps, 4 rows per CTA) instead of the heuristic's 256.
// RUN: morf-opt %S/Inputs/schedule-rowsum-128.mlir --lower-loop-to-gpu | FileCheck %s --check-prefix=ROW
// ROW: mgpu.func @rowsum_k0({{.*}}) kernel attributes {max_threads = 128, min_ctas_per_sm = 6, min_ctas_planned, morf.schedule = "RowReduction threads=128 threads-per-row=32 rows-per-cta=4 vector=4 grid<=1056 partials=None"}
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/schedule-rowsum-128.mlir 'builtin.module(lower-loop-to-gpu)' M=40,N=67 1e-5 %t/0
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/schedule-rowsum-128.mlir 'builtin.module(lower-loop-to-gpu)' M=7,N=100 1e-5 %t/1
//
// A split-K column reduction in row blocks of 3 and a final launch of 2 warps.
// RUN: morf-opt %S/Inputs/schedule-colsum-edited.mlir --lower-loop-to-gpu | FileCheck %s --check-prefix=COL
// COL: mgpu.func @colsum_k0({{.*}}morf.schedule = "SplitPartial threads=256 {{.*}} split-rows=3"
// COL: mgpu.func @colsum_k0_final({{.*}}max_threads = 64, morf.schedule = "FinalReduction threads=64 threads-per-row=32 rows-per-cta=2
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/schedule-colsum-edited.mlir 'builtin.module(lower-loop-to-gpu)' M=40,N=67 1e-5 %t/2
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/schedule-colsum-edited.mlir 'builtin.module(lower-loop-to-gpu)' M=1,N=1 1e-5 %t/3
//
// The same column reduction made `sequential`: one launch, one thread.
// RUN: morf-opt %S/Inputs/schedule-colsum-sequential.mlir --lower-loop-to-gpu | FileCheck %s --check-prefix=SEQ
// SEQ: mgpu.launch @colsum_k0
// SEQ-NOT: mgpu.launch
// SEQ: mgpu.func @colsum_k0({{.*}}max_threads = 32, morf.schedule = "Sequential threads=32
// SEQ-NOT: colsum_k0_final
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/Inputs/schedule-colsum-sequential.mlir 'builtin.module(lower-loop-to-gpu)' M=40,N=67 1e-5 %t/4
//
// Malformed or inapplicable attributes: located diagnostics at the nest.
// RUN: morf-opt %S/Inputs/schedule-invalid.mlir --split-input-file --verify-diagnostics --lower-loop-to-gpu
