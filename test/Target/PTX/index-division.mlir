// Index division and remainder by constants: a power of two becomes a shift or a mask, any
// other constant divisor an immediate operand of div.u64/rem.u64 (ptxas neither propagates a
// constant moved into a register into a 64-bit division nor inlines one by an immediate: it
// calls its division routine); a divisor known only at run time stays a register.
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK:      .visible .entry index_div(
// CHECK:      mov.u32 [[T:%r[0-9]+]], %tid.x;
// CHECK-NEXT: cvt.u64.u32 [[I:%rd[0-9]+]], [[T]];
// CHECK:      shr.u64 [[Q:%rd[0-9]+]], [[I]], 5;
// CHECK:      and.b64 [[R:%rd[0-9]+]], [[I]], 31;
// CHECK:      div.u64 [[Q3:%rd[0-9]+]], [[I]], 3;
// CHECK:      rem.u64 [[R3:%rd[0-9]+]], [[I]], 3;
// CHECK:      div.u64 [[QN:%rd[0-9]+]], [[I]], %rd{{[0-9]+}};
// CHECK:      ret;

mgpu.func @index_div(%out: !mgpu.ptr<f32>, %n: index) kernel attributes {max_threads = 64 : i64} {
  %i = mgpu.thread_id : index
  %c32 = mloop.constant 32 : index
  %c3 = mloop.constant 3 : index
  %q = mloop.div %i, %c32 : index
  %r = mloop.rem %i, %c32 : index
  %q3 = mloop.div %i, %c3 : index
  %r3 = mloop.rem %i, %c3 : index
  %qn = mloop.div %i, %n : index
  %a = mloop.add %q, %r : index
  %b = mloop.add %q3, %r3 : index
  %c = mloop.add %a, %b : index
  %d = mloop.add %c, %qn : index
  %f = mloop.constant 1.0 : f32
  mgpu.store %f, %out[%d] : !mgpu.ptr<f32>
  mgpu.return
}
