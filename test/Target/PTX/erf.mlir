// erf on f32: x + x P(x^2) below 1, 1 - 2^R(|x|) above (R a polynomial fit of log2 erfc in |x|
// itself: no reciprocal, ex2.approx of the Horner result), the sign of x put back by copysign.
// ex2 flushes subnormals (.ftz: one SASS instruction), which changes no result there.
// (The f64 diagnostic is in errors.mlir.)
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry erf_f32(
// CHECK:      ld.global.f32 [[X:%f[0-9]+]], [%rd{{[0-9]+}}];
// CHECK-NEXT: abs.f32 [[A:%f[0-9]+]], [[X]];
// CHECK-NEXT: mul.rn.f32 [[Z:%f[0-9]+]], [[X]], [[X]];
// The minimax coefficient of x^10, then Horner down to 2/sqrt(pi) - 1, and x + x P in one fma.
// CHECK-NEXT: mov.f32 [[P:%f[0-9]+]], 0fBA139FDC;
// CHECK-COUNT-4: fma.rn.f32 [[P]], [[P]], [[Z]], {{0f[0-9A-F]+}};
// CHECK-NEXT: fma.rn.f32 [[P]], [[P]], [[Z]], 0f3E0375D1;
// CHECK-NEXT: fma.rn.f32 [[SMALL:%f[0-9]+]], [[X]], [[P]], [[X]];
// log2 erfc |x| by Horner in |x| (6 coefficients), then ex2 and 1 - 2^R.
// CHECK-NEXT: mov.f32 [[R:%f[0-9]+]], 0fBADAD3BC;
// CHECK-COUNT-5: fma.rn.f32 [[R]], [[R]], [[A]], {{0f[0-9A-F]+}};
// CHECK-NEXT: ex2.approx.ftz.f32 [[E:%f[0-9]+]], [[R]];
// CHECK-NEXT: sub.rn.f32 [[BIG:%f[0-9]+]], 0f3F800000, [[E]];
// CHECK-NEXT: setp.lt.f32 [[SP:%p[0-9]+]], [[A]], 0f3F800000;
// CHECK-NEXT: selp.f32 [[SEL:%f[0-9]+]], [[SMALL]], [[BIG]], [[SP]];
// CHECK-NEXT: copysign.f32 [[RES:%f[0-9]+]], [[X]], [[SEL]];
// CHECK:      st.global.f32 [%rd{{[0-9]+}}], [[RES]];
// CHECK-NOT:  erf
mgpu.func @erf_f32(%x: !mgpu.ptr<f32>, %o: !mgpu.ptr<f32>) kernel {
  %t = mgpu.thread_id : index
  %a = mgpu.load %x[%t] : !mgpu.ptr<f32>
  %e = mloop.erf %a : f32
  mgpu.store %e, %o[%t] : !mgpu.ptr<f32>
  mgpu.return
}
