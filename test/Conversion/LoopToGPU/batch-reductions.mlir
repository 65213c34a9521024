// `batch-reductions` (`auto` by default: on but for the reload form of a single CTA per row
// that reloads its row from global memory, where it measured slower; reloading from a ring of
// staged rows it measured faster): in a register-resident row kernel, row reductions that
// do not use one another's results (LayerNorm backward's two row sums; row_col_stats' row
// mean and max) take their thread partials one after the other and are then reduced
// together. A CTA per row stores every value's warp totals, takes one barrier and reads them
// all back; a warp per row puts their warp reductions side by side. Inside the fast row loop
// of a CTA per row the slots come in two halves picked by a parity the loop carries, so each
// reduction (batched or not) is one barrier. The results are bitwise those of reducing each
// value on its own: the simulator's outputs with the option on and off are the same files,
// and they agree with the interpreter (a CTA per row with a staged ring, a cluster per row,
// a warp per row, a group of 16 lanes per row, a max and a sum together, the reload form).
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1024 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1024 grid=4 threads=128 threads-per-row=128 staged-rows=2})' | FileCheck %s
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1024 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1024 grid=4 threads=128 threads-per-row=128 staged-rows=2 batch-reductions=false})' | FileCheck %s --check-prefix=OFF
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=2048 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=2048 grid=4 cluster=2 staged-rows=2})' | FileCheck %s --check-prefix=CLUSTER
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu --size-hints M=16384,N=8192 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: morf-opt %S/../../../examples/layernorm_fwd.mlir --pipeline=gpu --size-hints M=16384,N=8192 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=DEPENDENT
// RUN: morf-opt --list-passes | FileCheck %s --check-prefix=HELP
// RUN: not morf-opt %s --pass-pipeline='builtin.module(lower-loop-to-gpu{batch-reductions=2})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: mkdir -p %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1024 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1024 grid=4 threads=128 threads-per-row=128 staged-rows=2})' M=77,N=1024 1e-2 %t/a1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1024 splits=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1024 grid=4 threads=128 threads-per-row=128 staged-rows=2 batch-reductions=false})' M=77,N=1024 1e-2 %t/a0
// RUN: cmp %t/a1/sim/result0.npy %t/a0/sim/result0.npy && cmp %t/a1/sim/result1.npy %t/a0/sim/result1.npy && cmp %t/a1/sim/result2.npy %t/a0/sim/result2.npy
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=2048 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=2048 grid=4 cluster=2 staged-rows=2})' M=37,N=2048 1e-2 %t/b1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=2048 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=2048 grid=4 cluster=2 staged-rows=2 batch-reductions=false})' M=37,N=2048 1e-2 %t/b0
// RUN: cmp %t/b1/sim/result0.npy %t/b0/sim/result0.npy && cmp %t/b1/sim/result1.npy %t/b0/sim/result1.npy && cmp %t/b1/sim/result2.npy %t/b0/sim/result2.npy
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 grid=3 threads-per-row=32 rows-in-flight=2})' M=101,N=384 1e-2 %t/c1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 grid=3 threads-per-row=32 rows-in-flight=2 batch-reductions=false})' M=101,N=384 1e-2 %t/c0
// RUN: cmp %t/c1/sim/result0.npy %t/c0/sim/result0.npy && cmp %t/c1/sim/result1.npy %t/c0/sim/result1.npy && cmp %t/c1/sim/result2.npy %t/c0/sim/result2.npy
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=5},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 grid=3 threads-per-row=16})' M=101,N=384 1e-2 %t/d
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/row_col_stats.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1024 grid=3 threads=128 threads-per-row=128 staged-rows=2})' M=45,N=1000 1e-5 %t/e
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1100},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1100 grid=3 threads=128 reload=true batch-reductions=true})' M=29,N=1100 1e-2 %t/f
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1100},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1100 grid=3 threads=128 reload=true staged-rows=1 report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RELOAD
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1100},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1100 grid=3 threads=128 reload=true report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RELOAD-ON
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1100},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1100 grid=3 threads=128 reload=true batch-reductions=true report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RELOAD-ON

// The two row sums: both partials, both warp reductions, both stores by lane 0 into the
// halves' slots (2 values x 2 halves x 32 warps), one barrier, one loop over the warps for
// both, and no second barrier before the pointwise part and the next row.
// CHECK-LABEL: mgpu.func @layernorm_bwd_k0
// CHECK:         %[[SLOTS:[0-9]+]] = mgpu.shared_alloc {size = 128} : !mgpu.ptr<f32, 3>
// CHECK:         mgpu.copy_async_wait {pending = 1}
// CHECK:         %[[A:[0-9]+]] = mgpu.warp_reduce sum
// CHECK-NEXT:    %[[B:[0-9]+]] = mgpu.warp_reduce sum
// CHECK:         mgpu.store %[[A]], %[[SLOTS]][
// CHECK:         mgpu.store %[[B]], %[[SLOTS]][
// CHECK:         mgpu.barrier
// CHECK-NEXT:    %{{[0-9]+}}, %{{[0-9]+}} = mloop.for
// CHECK-NOT:     mgpu.barrier
// CHECK:         mgpu.copy_async_wait {pending = 0}

// Off: one reduction after the other, each one barrier (a value x 2 halves x 32 warps).
// OFF-LABEL: mgpu.func @layernorm_bwd_k0
// OFF:         mgpu.shared_alloc {size = 64} : !mgpu.ptr<f32, 3>
// OFF:         mgpu.copy_async_wait {pending = 1}
// OFF:         mgpu.warp_reduce sum
// OFF:         mgpu.barrier
// OFF:         mgpu.warp_reduce sum
// OFF:         mgpu.barrier
// OFF-NOT:     mgpu.barrier
// OFF:         mgpu.copy_async_wait {pending = 0}

// A cluster per row: the block totals of both sums go to the cluster's slots together, one
// cluster barrier round trip for the two.
// CLUSTER-LABEL: mgpu.func @layernorm_bwd_k0
// CLUSTER:         mgpu.copy_async_wait {pending = 1}
// CLUSTER:         mgpu.barrier
// CLUSTER:         mgpu.cluster_store
// CLUSTER:         mgpu.cluster_store
// CLUSTER:         mgpu.cluster_arrive
// CLUSTER-NEXT:    mgpu.cluster_wait
// CLUSTER-NOT:     mgpu.cluster_arrive
// CLUSTER-NOT:     mgpu.barrier
// CLUSTER:         mgpu.copy_async_wait {pending = 0}

// REPORT: note: @layernorm_bwd_k0: 2 independent row reductions reduced together, one barrier for them a row (batch-reductions)

// LayerNorm forward's variance uses the mean: nothing to batch, and the report is silent.
// DEPENDENT: schedule: @layernorm_fwd_k0
// DEPENDENT-NOT: batch-reductions

// The reload form of a single CTA per row keeps its reductions apart unless asked.
// RELOAD: schedule: @layernorm_bwd_k0: row_fused {{.*}}reload)
// RELOAD-NOT: batch-reductions
// RELOAD-ON: note: @layernorm_bwd_k0: 2 independent row reductions reduced together, one barrier for them a row (batch-reductions)

// HELP: batch-reductions
// HELP-SAME: (default: auto)

// BAD: option 'batch-reductions' must be 'auto', 'true' or 'false', got '2'
