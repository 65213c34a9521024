// erf on f32: x P(x^2) below 1, 1 - t exp(-x^2 + Q(t)) above, the sign of x put back by
// copysign.
// (The f64 diagnostic is in errors.mlir.)
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry erf_f32(
// CHECK:      ld.global.f32 [[X:%f[0-9]+]], [%rd{{[0-9]+}}];
// CHECK-NEXT: abs.f32 [[A:%f[0-9]+]], [[X]];
// CHECK-NEXT: mul.rn.f32 [[Z:%f[0-9]+]], [[X]], [[X]];
// The Taylor coefficient of x^25, then Horner down to 2/sqrt(pi).
// CHECK-NEXT: mov.f32 [[P:%f[0-9]+]], 0f2ECF356B;
// CHECK:      fma.rn.f32 [[P]], [[P]], [[Z]], 0f3F906EBB;
// CHECK-NEXT: mul.rn.f32 [[SMALL:%f[0-9]+]], [[X]], [[P]];
// t = 1 / (1 + |x| / 2)
// CHECK-NEXT: mul.rn.f32 [[H:%f[0-9]+]], [[A]], 0f3F000000;
// CHECK-NEXT: add.rn.f32 [[DEN:%f[0-9]+]], [[H]], 0f3F800000;
// CHECK-NEXT: div.rn.f32 [[T:%f[0-9]+]], 0f3F800000, [[DEN]];
// -x^2 + Q(t) in one fma, then the accurate exp.
// CHECK:      neg.f32 [[NA:%f[0-9]+]], [[A]];
// CHECK-NEXT: fma.rn.f32 [[ARG:%f[0-9]+]], [[NA]], [[A]], {{%f[0-9]+}};
// CHECK-NEXT: min.NaN.f32 {{%f[0-9]+}}, [[ARG]], 0f42B20000;
// CHECK:      ex2.approx.f32
// CHECK:      mul.rn.f32 [[ERFC:%f[0-9]+]], [[T]], {{%f[0-9]+}};
// CHECK-NEXT: sub.rn.f32 [[BIG:%f[0-9]+]], 0f3F800000, [[ERFC]];
// CHECK-NEXT: setp.lt.f32 [[S:%p[0-9]+]], [[A]], 0f3F800000;
// CHECK-NEXT: selp.f32 [[SEL:%f[0-9]+]], [[SMALL]], [[BIG]], [[S]];
// CHECK-NEXT: copysign.f32 [[R:%f[0-9]+]], [[X]], [[SEL]];
// CHECK:      st.global.f32 [%rd{{[0-9]+}}], [[R]];
// CHECK-NOT:  erf
mgpu.func @erf_f32(%x: !mgpu.ptr<f32>, %o: !mgpu.ptr<f32>) kernel {
  %t = mgpu.thread_id : index
  %a = mgpu.load %x[%t] : !mgpu.ptr<f32>
  %e = mloop.erf %a : f32
  mgpu.store %e, %o[%t] : !mgpu.ptr<f32>
  mgpu.return
}
