// A register cap on a kernel (`max_registers`, 16..=255) is PTX's `.maxnreg`, beside the
// launch bounds: ptxas takes the lower of it and the cap `.maxntid` and `.minnctapersm` imply.
// The lowering sets none today: the forty-fourth session measured a flat partials kernel at
// `.maxnreg 64` 2-7% slower than at the 72 registers its CTA bound left ptxas, and 80 do not fit
// a CTA of 800 threads at launch (docs/perf.md); it is IR for a schedule or a user to set.
// RUN: morf-opt %s --emit=ptx | FileCheck %s
// RUN: morf-opt %s | FileCheck %s --check-prefix=IR

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
