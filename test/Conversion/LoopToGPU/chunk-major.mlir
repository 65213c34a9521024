// lower-loop-to-gpu{chunk-major=true}: a register-resident row kernel emits its body chunk by
// chunk of a thread's columns (every op for 8 columns, the vector store of those 8, then the
// next 8) instead of op by op over all 32; the same ops, the same results bit for bit (the
// reductions and partials combine the columns in the same order), shorter live ranges. ptxas
// on gelu_bwd_bias's row kernel at 65536 x 1024 with two rows in flight: 107 registers
// instead of 177 (docs/conversion-loop-to-gpu.md). Off by default (not timed yet).
// RUN: rm -rf %t && mkdir -p %t
// A bad value ends in a diagnostic and exit code 1:
// RUN: not morf-opt %s --pass-pipeline='builtin.module(lower-loop-to-gpu{chunk-major=2})' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: pass 'lower-loop-to-gpu': option 'chunk-major' expects true or false, got '2'
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 chunk-major=true final=launch})' | FileCheck %s --check-prefix=CHUNK
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 final=launch})' | FileCheck %s --check-prefix=OP
// The same outputs on the simulator, bit for bit, with and without (two rows in flight, a
// three chunks of 4 columns a thread, the last one partial: N = 300), and against the interpreter (bf16 outputs):
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=300,N=300},canonicalize,cse,lower-loop-to-gpu{size-hints=M=300,N=300 grid=3 rows-in-flight=2 chunk-major=true})' > %t/chunk.mlir
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=300,N=300},canonicalize,cse,lower-loop-to-gpu{size-hints=M=300,N=300 grid=3 rows-in-flight=2})' > %t/op.mlir
// RUN: morf-run %t/chunk.mlir --device sim --random M=300,N=300 --seed 5 --output-dir %t/chunk > /dev/null
// RUN: morf-run %t/op.mlir --device sim --random M=300,N=300 --seed 5 --output-dir %t/op > /dev/null
// RUN: cmp %t/chunk/result0.npy %t/op/result0.npy
// RUN: cmp %t/chunk/result1.npy %t/op/result1.npy
// RUN: morf-opt %t/chunk.mlir | FileCheck %s --check-prefix=FAST
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/softmax_fwd_colsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=200,N=92},canonicalize,cse,lower-loop-to-gpu{size-hints=M=200,N=92 grid=3 chunk-major=true})' M=200,N=92 1e-2 %t

// FAST: morf.schedule = "RowFused {{.*}}rows-in-flight=2 fast: N=300 vector=4 chunks=3; grid barrier; FinalReduction

// Chunk-major: the first chunk's erfs, its vector store of dx, then the next chunk's erfs.
// CHUNK-LABEL: mgpu.func @gelu_bwd_bias_k0(
// CHUNK-COUNT-8: mloop.erf
// CHUNK-NOT:     mloop.erf
// CHUNK:         mgpu.store_vec {{.*}} : !mgpu.ptr<bf16>
// CHUNK:         mloop.erf
// CHUNK-LABEL: mgpu.func @gelu_bwd_bias_k1(

// Op by op (the default): all 32 erfs of the row before the first store.
// OP-LABEL: mgpu.func @gelu_bwd_bias_k0(
// OP-COUNT-32: mloop.erf
// OP-NOT:      mloop.erf
// OP:          mgpu.store_vec {{.*}} : !mgpu.ptr<bf16>
// OP-LABEL: mgpu.func @gelu_bwd_bias_k1(
