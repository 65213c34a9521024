// Shuffles of every width (32-bit words; bf16 in the low half, f64 and index as two
// shuffles, i1 through 0/1), every mode, and warp reductions of bf16, f64 and index.
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry shuffles(
// CHECK:      mov.u64 [[C1:%rd[0-9]+]], 1;
// CHECK:      ld.global.f32 [[A:%f[0-9]+]],
// CHECK:      ld.global.b16 [[B:%h[0-9]+]],
// CHECK:      ld.global.f64 [[D:%fd[0-9]+]],
// CHECK-NEXT: cvt.u32.u64 [[L:%r[0-9]+]], [[C1]];
// CHECK-NEXT: mov.b32 [[X:%r[0-9]+]], [[A]];
// CHECK-NEXT: shfl.sync.bfly.b32 [[Y:%r[0-9]+]], [[X]], [[L]], 31, 0xffffffff;
// CHECK-NEXT: mov.b32 %f{{[0-9]+}}, [[Y]];
// CHECK:      shfl.sync.down.b32 {{.*}}, 31, 0xffffffff;
// CHECK:      shfl.sync.up.b32 {{.*}}, 0, 0xffffffff;
// CHECK:      shfl.sync.idx.b32 {{.*}}, 31, 0xffffffff;
// CHECK:      mov.b32 [[BW:%r[0-9]+]], {[[B]], [[B]]};
// CHECK-NEXT: shfl.sync.bfly.b32 [[BS:%r[0-9]+]], [[BW]],
// CHECK-NEXT: mov.b32 {%h{{[0-9]+}}, %h{{[0-9]+}}}, [[BS]];
// CHECK:      mov.b64 {[[LO:%r[0-9]+]], [[HI:%r[0-9]+]]}, [[D]];
// CHECK-NEXT: shfl.sync.down.b32 [[LO2:%r[0-9]+]], [[LO]],
// CHECK-NEXT: shfl.sync.down.b32 [[HI2:%r[0-9]+]], [[HI]],
// CHECK-NEXT: mov.b64 %fd{{[0-9]+}}, {[[LO2]], [[HI2]]};
// CHECK:      shfl.sync.idx.b32
// CHECK-NEXT: shfl.sync.idx.b32
// CHECK:      setp.gt.f32 [[P:%p[0-9]+]],
// CHECK:      selp.u32 [[PW:%r[0-9]+]], 1, 0, [[P]];
// CHECK-NEXT: shfl.sync.bfly.b32 [[PS:%r[0-9]+]], [[PW]],
// CHECK-NEXT: setp.ne.u32 %p{{[0-9]+}}, [[PS]], 0;
// i1 constants and select (no selp.pred).
// CHECK-NEXT: setp.ne.u32 [[TRUE:%p[0-9]+]], 1, 0;
// CHECK-NEXT: and.pred
// CHECK-NEXT: not.pred
// CHECK-NEXT: and.pred
// CHECK-NEXT: or.pred
// bf16 max: shuffle, widen, max.NaN, round back; five times.
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 16, 31, 0xffffffff;
// CHECK:      max.NaN.f32
// CHECK:      cvt.rn.bf16.f32
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 1, 31, 0xffffffff;
// f64 min: two shuffles per step.
// CHECK:      shfl.sync.bfly.b32 {{.*}}, 16, 31, 0xffffffff;
// CHECK-NEXT: shfl.sync.bfly.b32 {{.*}}, 16, 31, 0xffffffff;
// CHECK:      min.f64
// index sum.
// CHECK:      add.s64
// CHECK:      st.global.u64

mgpu.func @shuffles(%x: !mgpu.ptr<f32>, %xb: !mgpu.ptr<bf16>, %xd: !mgpu.ptr<f64>, %o: !mgpu.ptr<f32>, %od: !mgpu.ptr<f64>, %ob: !mgpu.ptr<bf16>, %oi: !mgpu.ptr<index>) kernel {
  %t = mgpu.thread_id : index
  %c1 = mloop.constant 1 : index
  %c3 = mloop.constant 3 : index
  %a = mgpu.load %x[%t] : !mgpu.ptr<f32>
  %b = mgpu.load %xb[%t] : !mgpu.ptr<bf16>
  %d = mgpu.load %xd[%t] : !mgpu.ptr<f64>
  %s1 = mgpu.shuffle xor %a, %c1 : f32
  %s2 = mgpu.shuffle down %s1, %c1 : f32
  %s3 = mgpu.shuffle up %s2, %c1 : f32
  %s4 = mgpu.shuffle idx %s3, %c3 : f32
  %sb = mgpu.shuffle xor %b, %c1 : bf16
  %sd = mgpu.shuffle down %d, %c1 : f64
  %si = mgpu.shuffle idx %t, %c3 : index
  %p = mloop.cmp gt, %a, %s4 : f32
  %sp = mgpu.shuffle xor %p, %c1 : i1
  %tr = mloop.constant true : i1
  %q = mloop.select %sp, %tr, %p : i1
  %r = mloop.select %q, %s4, %a : f32
  %rb = mgpu.warp_reduce max %sb : bf16
  %rd = mgpu.warp_reduce min %sd : f64
  %ri = mgpu.warp_reduce sum %si : index
  mgpu.store %r, %o[%t] : !mgpu.ptr<f32>
  mgpu.store %rb, %ob[%t] : !mgpu.ptr<bf16>
  mgpu.store %rd, %od[%t] : !mgpu.ptr<f64>
  mgpu.store %ri, %oi[%t] : !mgpu.ptr<index>
  mgpu.return
}
