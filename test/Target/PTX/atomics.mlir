// mgpu.atomic_rmw: one atom (or red when the old value is unused) for add and index
// max/min; a compare-and-swap loop around max.NaN.f32 (f64: max.f64 and the NaN select) for
// float max/min.
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry atomics(
// f32 add, old value used: atom; its result feeds the store.
// CHECK:      shl.b64 [[O0:%rd[0-9]+]], [[I:%rd[0-9]+]], 2;
// CHECK-NEXT: add.s64 [[A0:%rd[0-9]+]], [[P:%rd[0-9]+]], [[O0]];
// CHECK-NEXT: atom.global.add.f32 [[OLD:%f[0-9]+]], {{\[}}[[A0]]{{\]}}, [[V:%f[0-9]+]];
// f32 add, old value unused: red.
// CHECK:      red.global.add.f32 [%rd{{[0-9]+}}], [[V]];
// f64 add, used, and index add, max and min (unused: red).
// CHECK:      shl.b64 {{.*}}, 3;
// CHECK:      atom.global.add.f64 %fd{{[0-9]+}}, [%rd{{[0-9]+}}], %fd{{[0-9]+}};
// CHECK:      red.global.add.u64 [%rd{{[0-9]+}}], [[I]];
// CHECK:      red.global.max.s64 [%rd{{[0-9]+}}], [[I]];
// CHECK:      atom.global.min.s64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], [[I]];
// f32 max: a CAS loop around max.NaN.f32.
// CHECK:      ld.relaxed.gpu.global.b32 [[C:%r[0-9]+]], {{\[}}[[AM:%rd[0-9]+]]{{\]}};
// CHECK-NEXT: [[HEAD:\$L[0-9]+]]:
// CHECK-NEXT: mov.b32 [[CF:%f[0-9]+]], [[C]];
// CHECK-NEXT: max.NaN.f32 [[NF:%f[0-9]+]], [[CF]], [[V]];
// CHECK-NEXT: mov.b32 [[N:%r[0-9]+]], [[NF]];
// CHECK-NEXT: atom.global.cas.b32 [[S:%r[0-9]+]], {{\[}}[[AM]]{{\]}}, [[C]], [[N]];
// CHECK-NEXT: setp.ne.b32 [[PR:%p[0-9]+]], [[S]], [[C]];
// CHECK-NEXT: mov.b32 [[C]], [[S]];
// CHECK-NEXT: @[[PR]] bra [[HEAD]];
// CHECK-NEXT: mov.b32 %f{{[0-9]+}}, [[C]];
// f32 min: min.NaN.f32 in the loop.
// CHECK:      min.NaN.f32
// CHECK-NEXT: mov.b32
// CHECK-NEXT: atom.global.cas.b32
// f64 max: 64-bit CAS around max.f64 with the NaN select.
// CHECK:      ld.relaxed.gpu.global.b64 [[CD:%rd[0-9]+]],
// CHECK:      mov.b64 [[CDF:%fd[0-9]+]], [[CD]];
// CHECK-NEXT: max.f64 [[M:%fd[0-9]+]], [[CDF]], [[VD:%fd[0-9]+]];
// CHECK-NEXT: setp.nan.f64 [[NAN:%p[0-9]+]], [[CDF]], [[VD]];
// CHECK-NEXT: add.rn.f64 [[NN:%fd[0-9]+]], [[CDF]], [[VD]];
// CHECK-NEXT: selp.f64 [[NDF:%fd[0-9]+]], [[NN]], [[M]], [[NAN]];
// CHECK-NEXT: mov.b64 [[ND:%rd[0-9]+]], [[NDF]];
// CHECK-NEXT: atom.global.cas.b64 [[SD:%rd[0-9]+]], [%rd{{[0-9]+}}], [[CD]], [[ND]];
// CHECK-NEXT: setp.ne.b64 %p{{[0-9]+}}, [[SD]], [[CD]];
// CHECK:      ret;

mgpu.func @atomics(%p: !mgpu.ptr<f32>, %pd: !mgpu.ptr<f64>, %pi: !mgpu.ptr<index>, %v: f32, %vd: f64) kernel {
  %i = mgpu.thread_id : index
  %old = mgpu.atomic_rmw add %v, %p[%i] : !mgpu.ptr<f32>
  %u = mgpu.atomic_rmw add %v, %p[%i] : !mgpu.ptr<f32>
  %od = mgpu.atomic_rmw add %vd, %pd[%i] : !mgpu.ptr<f64>
  %ui = mgpu.atomic_rmw add %i, %pi[%i] : !mgpu.ptr<index>
  %um = mgpu.atomic_rmw max %i, %pi[%i] : !mgpu.ptr<index>
  %mi = mgpu.atomic_rmw min %i, %pi[%i] : !mgpu.ptr<index>
  %mx = mgpu.atomic_rmw max %v, %p[%i] : !mgpu.ptr<f32>
  %mn = mgpu.atomic_rmw min %v, %p[%i] : !mgpu.ptr<f32>
  %mxd = mgpu.atomic_rmw max %vd, %pd[%i] : !mgpu.ptr<f64>
  %s = mloop.add %old, %mx : f32
  mgpu.store %s, %p[%i] : !mgpu.ptr<f32>
  mgpu.store %od, %pd[%i] : !mgpu.ptr<f64>
  mgpu.store %mi, %pi[%i] : !mgpu.ptr<index>
  mgpu.return
}
