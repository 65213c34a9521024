// `lower-loop-to-gpu{contract-fma=true}` marks every kernel `contract_fma`; the PTX emitter
// then writes its f32 `add`, `sub` and `mul` without `.rn`, which lets ptxas contract a
// multiply and an add into one `fma` (one rounding instead of two: within the numerics
// contract, not bit-identical to the simulator, which keeps two). f64 arithmetic keeps `.rn`.
// Off by default, a tuner knob (docs/target-ptx.md).
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=32768,N=4096},canonicalize,cse,lower-loop-to-gpu{size-hints=M=32768,N=4096 contract-fma=true})' > %t.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: morf-opt %t.mlir --emit=ptx | FileCheck %s --check-prefix=ON
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=32768,N=4096},canonicalize,cse,lower-loop-to-gpu{size-hints=M=32768,N=4096})' --emit=ptx | FileCheck %s --check-prefix=OFF

// IR: mgpu.func @rmsnorm_bwd_k0({{.*}}kernel attributes {{{.*}}contract_fma{{.*}}}
// The attribute survives printing and parsing: the PTX of the printed module contracts.
// ON: .visible .entry rmsnorm_bwd_k0(
// ON-NOT: mul.rn.f32
// ON: mul.f32
// ON: add.f32
// OFF: .visible .entry rmsnorm_bwd_k0(
// OFF-NOT: {{(mul|add|sub)\.f32}}
// OFF: mul.rn.f32

// The simulator runs the same IR (it ignores the attribute): against the interpreter.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: sh %S/../../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=1024 contract-fma=true})' M=37,N=1024 1e-2 %t.d

// A value other than true or false is refused, naming the option (exit code 1).
// RUN: not morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{contract-fma=maybe})' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: option 'contract-fma' expects true or false, got 'maybe'
