// A warp reduction over groups of lanes (`{width = W}`, a row held by W lanes of a warp): the
// butterfly takes only the offsets below W, which stay inside each aligned group; a width of
// 1 is a move.
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry groups(
// CHECK:      ld.global.f32 [[A:%f[0-9]+]],
// CHECK-NOT:  shfl.sync.bfly.b32 {{.*}}, 16, 31
// CHECK-NOT:  shfl.sync.bfly.b32 {{.*}}, 8, 31
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 2, 31, 0xffffffff;
// CHECK:      add.rn.f32
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 1, 31, 0xffffffff;
// CHECK:      add.rn.f32 [[S:%f[0-9]+]],
// CHECK-NOT:  shfl
// CHECK:      mov.f32 [[M:%f[0-9]+]], [[A]];
// CHECK:      st.global.f32 {{.*}}, [[S]];
// CHECK:      st.global.f32 {{.*}}, [[M]];

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
