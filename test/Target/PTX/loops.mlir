// Nested 'mloop.for' loops with iter_args (the outer loop swaps its values through a
// parallel copy), f32 vector loads, a scalar f32 parameter and dynamic shared memory.
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK:      .address_size 64
// CHECK-EMPTY:
// CHECK-NEXT: .extern .shared .align 16 .b8 dyn_smem[];
// CHECK-LABEL: .visible .entry loops(
// CHECK:        .param .f32 loops_param_3
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 128, 1, 1
// CHECK:      ld.param.f32 [[SCALE:%f[0-9]+]], [loops_param_3];
// CHECK:      mov.b64 [[I:%rd[0-9]+]], [[C0:%rd[0-9]+]];
// CHECK-NEXT: mov.f32 [[A:%f[0-9]+]], [[ZERO:%f[0-9]+]];
// CHECK-NEXT: mov.f32 [[B:%f[0-9]+]], [[ONE:%f[0-9]+]];
// CHECK-NEXT: [[OUTER:\$L[0-9]+]]:
// CHECK-NEXT: setp.ge.s64 [[P:%p[0-9]+]], [[I]], [[N:%rd[0-9]+]];
// CHECK-NEXT: @[[P]] bra [[OUTER_EXIT:\$L[0-9]+]];
// CHECK-NEXT: mov.b64 [[J:%rd[0-9]+]], [[C0]];
// CHECK-NEXT: mov.f32 [[ACC:%f[0-9]+]], [[A]];
// CHECK-NEXT: [[INNER:\$L[0-9]+]]:
// CHECK-NEXT: setp.ge.s64 [[Q:%p[0-9]+]], [[J]], %rd{{[0-9]+}};
// CHECK-NEXT: @[[Q]] bra [[INNER_EXIT:\$L[0-9]+]];
// CHECK:      ld.global.nc.v4.f32 {[[V0:%f[0-9]+]], %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, [%rd{{[0-9]+}}];
// CHECK-NEXT: add.rn.f32 [[S:%f[0-9]+]], [[ACC]], [[V0]];
// CHECK-NEXT: mul.rn.f32 [[S2:%f[0-9]+]], [[S]], [[SCALE]];
// CHECK-NEXT: mov.f32 [[T:%f[0-9]+]], [[S2]];
// CHECK-NEXT: mov.f32 [[ACC]], [[T]];
// CHECK-NEXT: add.s64 [[J]], [[J]], %rd{{[0-9]+}};
// CHECK-NEXT: bra [[INNER]];
// CHECK-NEXT: [[INNER_EXIT]]:
// The swap (a, b) <- (b, inner) reads both values before writing either.
// CHECK-NEXT: mov.f32 [[T1:%f[0-9]+]], [[B]];
// CHECK-NEXT: mov.f32 [[T2:%f[0-9]+]], [[ACC]];
// CHECK-NEXT: mov.f32 [[A]], [[T1]];
// CHECK-NEXT: mov.f32 [[B]], [[T2]];
// CHECK-NEXT: add.s64 [[I]], [[I]], %rd{{[0-9]+}};
// CHECK-NEXT: bra [[OUTER]];
// CHECK-NEXT: [[OUTER_EXIT]]:
// CHECK-NEXT: add.rn.f32 [[SUM:%f[0-9]+]], [[A]], [[B]];
// CHECK-NEXT: mov.u64 [[DYN:%rd[0-9]+]], dyn_smem;
// CHECK:      st.shared.v2.f32 [%rd{{[0-9]+}}], {[[SUM]], [[SUM]]};
// CHECK-NEXT: bar.sync 0;
// CHECK:      ld.shared.v2.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}}, [%rd{{[0-9]+}}];

mgpu.func @loops(%x: !mgpu.ptr<f32>, %o: !mgpu.ptr<f32>, %n: index, %scale: f32) kernel attributes {max_threads = 128 : i64} {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c4 = mloop.constant 4 : index
  %zero = mloop.constant 0.0 : f32
  %one = mloop.constant 1.0 : f32
  %t = mgpu.thread_id : index
  %r:2 = mloop.for %i = %c0 to %n step %c1 iter_args(%a = %zero, %b = %one) -> (f32, f32) {
    %inner = mloop.for %j = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (f32) {
      %k = mloop.mul %i, %c4 : index
      %kj = mloop.add %k, %j : index
      %kk = mloop.mul %kj, %c4 : index
      %v0, %v1, %v2, %v3 = mgpu.load_vec %x[%kk] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
      %s = mloop.add %acc, %v0 : f32
      %s2 = mloop.mul %s, %scale : f32
      mloop.yield %s2 : f32
    }
    mloop.yield %b, %inner : f32, f32
  }
  %sum = mloop.add %r#0, %r#1 : f32
  %dyn = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
  mgpu.store_vec %sum, %sum, %dyn[%c0] : !mgpu.ptr<f32, 3>
  mgpu.barrier
  %w0, %w1 = mgpu.load_vec %dyn[%c0] : !mgpu.ptr<f32, 3> -> f32, f32
  %w = mloop.add %w0, %w1 : f32
  mgpu.store %w, %o[%t] : !mgpu.ptr<f32>
  mgpu.return
}
