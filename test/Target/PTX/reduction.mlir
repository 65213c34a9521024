// A row reduction: each block sums one row of bf16 in fp32 (a strided loop with an
// iter_arg), reduces within each warp, combines the warps through shared memory after a
// barrier, and thread 0 writes the row's sum.
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_90
// CHECK-NEXT: .address_size 64
// CHECK-LABEL: .visible .entry rowsum(
// CHECK-NEXT:   .param .u64 rowsum_param_0,
// CHECK-NEXT:   .param .u64 rowsum_param_1,
// CHECK-NEXT:   .param .u64 rowsum_param_2
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 1024, 1, 1
// CHECK:      .shared .align 16 .b8 __smem0[128];
// CHECK:      cvta.to.global.u64
// The strided loop: header, exit test, body, latch.
// CHECK:      mov.b64 [[IV:%rd[0-9]+]], [[LB:%rd[0-9]+]];
// CHECK-NEXT: mov.f32 [[ACC:%f[0-9]+]], [[INIT:%f[0-9]+]];
// CHECK-NEXT: [[HEAD:\$L[0-9]+]]:
// CHECK-NEXT: setp.ge.s64 [[P:%p[0-9]+]], [[IV]], %rd{{[0-9]+}};
// CHECK-NEXT: @[[P]] bra [[EXIT:\$L[0-9]+]];
// CHECK:      ld.global.nc.b16 [[H:%h[0-9]+]], [%rd{{[0-9]+}}];
// CHECK-NEXT: cvt.f32.bf16 [[W:%f[0-9]+]], [[H]];
// CHECK-NEXT: add.rn.f32 [[NEXT:%f[0-9]+]], [[ACC]], [[W]];
// CHECK-NEXT: mov.f32 [[T:%f[0-9]+]], [[NEXT]];
// CHECK-NEXT: mov.f32 [[ACC]], [[T]];
// CHECK-NEXT: add.s64 [[IV]], [[IV]], %rd{{[0-9]+}};
// CHECK-NEXT: bra [[HEAD]];
// CHECK-NEXT: [[EXIT]]:
// The warp reduction: five butterfly steps.
// CHECK:      shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16, 31, 0xffffffff;
// CHECK:      add.rn.f32
// CHECK:      shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 8, 31, 0xffffffff;
// CHECK:      shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 4, 31, 0xffffffff;
// CHECK:      shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 2, 31, 0xffffffff;
// CHECK:      shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1, 31, 0xffffffff;
// CHECK:      mov.u32 %r{{[0-9]+}}, %laneid;
// CHECK:      shr.u32 %r{{[0-9]+}}, %r{{[0-9]+}}, 5;
// CHECK:      mov.u64 [[SM:%rd[0-9]+]], __smem0;
// CHECK:      setp.eq.s64 [[L0:%p[0-9]+]],
// CHECK-NEXT: @![[L0]] bra [[END:\$L[0-9]+]];
// CHECK:      st.shared.f32 [%rd{{[0-9]+}}], %f{{[0-9]+}};
// CHECK-NEXT: [[END]]:
// CHECK-NEXT: bar.sync 0;
// The warp count (block_dim + 31) div 32: a division by a power of two is a shift.
// CHECK:      shr.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 5;
// The guarded read: a value-returning if.
// CHECK:      @!%p{{[0-9]+}} bra [[ELSE:\$L[0-9]+]];
// CHECK:      ld.shared.f32 [[P:%f[0-9]+]], [%rd{{[0-9]+}}];
// CHECK-NEXT: mov.f32 [[PART:%f[0-9]+]], [[P]];
// CHECK-NEXT: bra [[JOIN:\$L[0-9]+]];
// CHECK-NEXT: [[ELSE]]:
// CHECK-NEXT: mov.f32 [[PART]], %f{{[0-9]+}};
// CHECK-NEXT: [[JOIN]]:
// CHECK:      st.global.f32
// CHECK:      ret;
// CHECK-NEXT: }

mgpu.func @rowsum(%x: !mgpu.ptr<bf16>, %out: !mgpu.ptr<f32>, %n: index) kernel attributes {max_threads = 1024 : i64, morf.bench} {
  %t = mgpu.thread_id : index
  %row = mgpu.block_id : index
  %bd = mgpu.block_dim : index
  %zero = mloop.constant 0.0 : f32
  %c0 = mloop.constant 0 : index
  %c32 = mloop.constant 32 : index
  %rowbase = mloop.mul %row, %n : index
  %acc = mloop.for %j = %t to %n step %bd iter_args(%a = %zero) -> (f32) {
    %k = mloop.add %rowbase, %j : index
    %v = mgpu.load %x[%k] {nc} : !mgpu.ptr<bf16>
    %f = mloop.convert %v : bf16 to f32
    %s = mloop.add %a, %f : f32
    mloop.yield %s : f32
  }
  %w = mgpu.warp_reduce sum %acc : f32
  %lane = mgpu.lane_id : index
  %warp = mgpu.warp_id : index
  %smem = mgpu.shared_alloc {size = 32 : i64} : !mgpu.ptr<f32, 3>
  %is0 = mloop.cmp eq, %lane, %c0 : index
  mgpu.if %is0 {
    mgpu.store %w, %smem[%warp] : !mgpu.ptr<f32, 3>
    mgpu.yield
  }
  mgpu.barrier
  %nw = mloop.div %bd, %c32 : index
  %inw = mloop.cmp lt, %lane, %nw : index
  %part = mgpu.if %inw -> (f32) {
    %p = mgpu.load %smem[%lane] : !mgpu.ptr<f32, 3>
    mgpu.yield %p : f32
  } else {
    mgpu.yield %zero : f32
  }
  %total = mgpu.warp_reduce sum %part : f32
  %first = mloop.cmp eq, %t, %c0 : index
  mgpu.if %first {
    mgpu.store %total, %out[%row] : !mgpu.ptr<f32>
    mgpu.yield
  }
  mgpu.return
}
