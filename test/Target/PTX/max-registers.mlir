// A register cap on a kernel (`max_registers`, 16..=255) is PTX's `.maxnreg`, beside the
// launch bounds: ptxas takes the lower of it and the cap `.maxntid` and `.minnctapersm` imply.
// The lowering sets none by default: the forty-fourth session measured a flat partials kernel
// at `.maxnreg 64` 2-7% slower than at the 72 registers its CTA bound left ptxas, and 80 do not
// fit a CTA of 800 threads at launch (docs/perf.md); it is IR for a schedule or a user to set,
// and `lower-loop-to-gpu{max-registers=N}` (16..255) sets it on every kernel the pass makes.
// RUN: morf-opt %s --emit=ptx | FileCheck %s
// RUN: morf-opt %s | FileCheck %s --check-prefix=IR
// RUN: morf-opt %S/../../../examples/softmax_fwd_colsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=1024 max-registers=96})' --emit=ptx | FileCheck %s --check-prefix=OPT
// RUN: not morf-opt %S/../../../examples/softmax_fwd_colsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{max-registers=300})' 2>&1 | FileCheck %s --check-prefix=BAD
// OPT-LABEL: .entry softmax_fwd_colsum_k0
// OPT: .maxntid
// OPT: .maxnreg 96
// OPT-NOT: .entry
// BAD: option 'max-registers' must be 16..255 (0: none), got '300'

// CHECK-LABEL: .visible .entry capped(
// CHECK: .maxntid 800, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK-NEXT: .maxnreg 72
// CHECK-NEXT: {
// CHECK-LABEL: .visible .entry alone(
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .maxnreg 64
// CHECK-NEXT: {
// IR: mgpu.func @capped(%{{.*}}) kernel attributes {max_registers = 72, max_threads = 800, min_ctas_per_sm = 1}
module {
  mgpu.func @capped(%x: !mgpu.ptr<f32>) kernel attributes {max_threads = 800, min_ctas_per_sm = 1, max_registers = 72} {
    mgpu.return
  }
  mgpu.func @alone(%x: !mgpu.ptr<f32>) kernel attributes {max_threads = 256, min_ctas_per_sm = 0, max_registers = 64} {
    mgpu.return
  }
}
