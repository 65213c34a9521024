// erf on f32: x P(x^2) below 1, 1 - t exp(-x^2 + Q(t)) above (n = -t = rcp.approx(-(1 + |x|/2)),
// 2^(log2(e) (Q - x^2)) by ex2.approx, 1 + n 2^... in one fma), the sign of x put back by copysign.
// Both approximate instructions flush subnormals (.ftz: one SASS instruction each), which
// changes no result there.
// (The f64 diagnostic is in errors.mlir.)
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry erf_f32(
// CHECK:      ld.global.f32 [[X:%f[0-9]+]], [%rd{{[0-9]+}}];
// CHECK-NEXT: abs.f32 [[A:%f[0-9]+]], [[X]];
// CHECK-NEXT: mul.rn.f32 [[Z:%f[0-9]+]], [[X]], [[X]];
// The minimax coefficient of x^12, then Horner down to about 2/sqrt(pi).
// CHECK-NEXT: mov.f32 [[P:%f[0-9]+]], 0f38A4B51A;
// CHECK-COUNT-6: fma.rn.f32 [[P]], [[P]], [[Z]], {{0f[0-9A-F]+}};
// CHECK-NEXT: mul.rn.f32 [[SMALL:%f[0-9]+]], [[X]], [[P]];
// n = -t = 1 / -(1 + |x| / 2)
// CHECK-NEXT: fma.rn.f32 [[DEN:%f[0-9]+]], [[A]], 0fBF000000, 0fBF800000;
// CHECK-NEXT: rcp.approx.ftz.f32 [[N:%f[0-9]+]], [[DEN]];
// log2(e) Q(-n) by Horner (10 coefficients), minus log2(e) x^2 in one fma, then ex2.
// CHECK-NEXT: mov.f32 [[Q:%f[0-9]+]], 0fBE7C6F08;
// CHECK-COUNT-9: fma.rn.f32 [[Q]], [[Q]], [[N]], {{0f[0-9A-F]+}};
// CHECK-NEXT: fma.rn.f32 [[S:%f[0-9]+]], [[Z]], 0fBFB8AA3B, [[Q]];
// CHECK-NEXT: ex2.approx.ftz.f32 [[E:%f[0-9]+]], [[S]];
// CHECK-NEXT: fma.rn.f32 [[BIG:%f[0-9]+]], [[N]], [[E]], 0f3F800000;
// CHECK-NEXT: setp.lt.f32 [[SP:%p[0-9]+]], [[A]], 0f3F800000;
// CHECK-NEXT: selp.f32 [[SEL:%f[0-9]+]], [[SMALL]], [[BIG]], [[SP]];
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
