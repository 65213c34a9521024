// Early accumulates (`early-accumulates=true`, a tuner knob; off by default): in a
// register-resident row kernel, an `accumulate` of the inner
// parallel after a row reduction that needs nothing of the reduction (RMSNorm's
// dw += dy * xhat) is emitted before the reduction, so its products are not held across it.
// With a warp per row's shared accumulators the shared partial row's read-modify-write comes
// before the row's warp reduction; dx (which needs the reduction) is stored after it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 rows-in-flight=1 shared-accs=true final=launch early-accumulates=true})' | FileCheck %s
// CHECK-LABEL: mgpu.func @rmsnorm_bwd_k0(
// CHECK:       mgpu.load_vec %{{.*}} : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
// CHECK:       mgpu.store_vec %{{.*}} : !mgpu.ptr<f32, 3>
// CHECK:       mgpu.warp_reduce sum
// CHECK-NOT:   !mgpu.ptr<f32, 3>
// CHECK:       mgpu.store_vec %{{.*}} : !mgpu.ptr<bf16>
//
// The same bits as before on the simulator (against the interpreter), for both norms, with
// register and shared accumulators, one and two rows in flight, and for softmax's column sum
// of the normalized row (its accumulate needs the row's max and sum: it stays after them).
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=301,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=301,N=1024 rows-in-flight=1 shared-accs=true grid=3 early-accumulates=true})' M=301,N=1024 1e-2 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=301,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=301,N=1024 rows-in-flight=2 grid=3 early-accumulates=true})' M=301,N=1024 1e-2 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=301,N=1000},canonicalize,cse,lower-loop-to-gpu{size-hints=M=301,N=1000 rows-in-flight=1 shared-accs=true grid=3 early-accumulates=true})' M=301,N=1000 1e-2 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=77,N=8192},canonicalize,cse,lower-loop-to-gpu{size-hints=M=77,N=8192 grid=3 early-accumulates=true})' M=77,N=8192 1e-2 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/softmax_fwd_colsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=301,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=301,N=1024 grid=3 early-accumulates=true})' M=301,N=1024 1e-2 %t
// Off by default: the shared accumulators' read-modify-write follows the warp reduction.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 rows-in-flight=1 shared-accs=true final=launch})' | FileCheck %s --check-prefix=OFF
// OFF-LABEL: mgpu.func @rmsnorm_bwd_k0(
// OFF:       mgpu.warp_reduce sum
// OFF:       mgpu.load_vec %{{.*}} : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
// The option takes true or false; anything else is an error, exit 1.
// RUN: not morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{early-accumulates=maybe})' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: option 'early-accumulates' expects true or false, got 'maybe'
