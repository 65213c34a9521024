// A warp reduction over groups of lanes (`{width = W}`, a row held by W lanes of a warp): the
// butterfly takes only the offsets below W, which stay inside each aligned group, and each
// shuffle names only the group's lanes (the groups of a warp may hold rows of different trip
// counts, so another group need not reach it); a width of 1 is a move.
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry groups(
// CHECK:      ld.global.f32 [[A:%f[0-9]+]],
// CHECK-NEXT: mov.u32 [[L:%r[0-9]+]], %laneid;
// CHECK-NEXT: and.b32 [[B:%r[0-9]+]], [[L]], 28;
// CHECK-NEXT: mov.b32 [[O:%r[0-9]+]], 15;
// CHECK-NEXT: shl.b32 [[M:%r[0-9]+]], [[O]], [[B]];
// CHECK-NOT:  shfl.sync.bfly.b32 {{.*}}, 16, 31
// CHECK-NOT:  shfl.sync.bfly.b32 {{.*}}, 8, 31
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 2, 31, [[M]];
// CHECK:      add.rn.f32
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 1, 31, [[M]];
// CHECK:      add.rn.f32 [[S:%f[0-9]+]],
// CHECK-NOT:  shfl
// CHECK:      mov.f32 [[X:%f[0-9]+]], [[A]];
// CHECK:      st.global.f32 {{.*}}, [[S]];
// CHECK:      st.global.f32 {{.*}}, [[X]];

mgpu.func @groups(%x: !mgpu.ptr<f32>, %o: !mgpu.ptr<f32>) kernel {
  %t = mgpu.thread_id : index
  %v = mgpu.load %x[%t] : !mgpu.ptr<f32>
  %s = mgpu.warp_reduce sum %v {width = 4} : f32
  %m = mgpu.warp_reduce max %v {width = 1} : f32
  %c2 = mloop.constant 2 : index
  %i = mloop.mul %t, %c2 : index
  mgpu.store %s, %o[%i] : !mgpu.ptr<f32>
  %c1 = mloop.constant 1 : index
  %j = mloop.add %i, %c1 : index
  mgpu.store %m, %o[%j] : !mgpu.ptr<f32>
  mgpu.return
}
