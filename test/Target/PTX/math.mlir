// Every scalar op: f32 (the accurate exp/log/tanh of the default, no fast-math), f64 (exact instructions,
// NaN-propagating max/min), and the bf16/f16 conversions and arithmetic through f32.
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry math_f32(
// CHECK:      ld.global.f32 [[A:%f[0-9]+]], [%rd{{[0-9]+}}];
// CHECK-NEXT: mov.f32 [[C:%f[0-9]+]], 0f3FC00000;
// CHECK-NEXT: add.rn.f32 [[ADD:%f[0-9]+]], [[A]], [[C]];
// CHECK-NEXT: sub.rn.f32 [[SUB:%f[0-9]+]], [[ADD]], [[A]];
// CHECK-NEXT: mul.rn.f32 [[MUL:%f[0-9]+]], [[SUB]], [[A]];
// CHECK-NEXT: div.rn.f32 [[DIV:%f[0-9]+]], [[MUL]], [[C]];
// CHECK-NEXT: max.NaN.f32 [[MAX:%f[0-9]+]], [[DIV]], [[A]];
// CHECK-NEXT: min.NaN.f32 [[MIN:%f[0-9]+]], [[MAX]], [[C]];
// pow(x, y) = 2^(y * log2 x)
// CHECK-NEXT: lg2.approx.f32 [[L:%f[0-9]+]], [[MIN]];
// CHECK-NEXT: mul.rn.f32 [[YL:%f[0-9]+]], [[L]], [[C]];
// CHECK-NEXT: ex2.approx.f32 [[POW:%f[0-9]+]], [[YL]];
// CHECK-NEXT: neg.f32 [[NEG:%f[0-9]+]], [[POW]];
// exp (accurate by default): clamp to [-104, 88.72283], t = x log2 e, its rounding error e
// exactly by fma, 2^t by ex2.approx (finite below the clamp), 2^t * (1 + e ln 2) in one fma,
// inf above the clamp.
// CHECK-NEXT: min.NaN.f32 [[XC:%f[0-9]+]], [[NEG]], 0f42B17217;
// CHECK-NEXT: max.NaN.f32 [[XC]], [[XC]], 0fC2D00000;
// CHECK-NEXT: mul.rn.f32 [[T:%f[0-9]+]], [[XC]], 0f3FB8AA3B;
// CHECK-NEXT: neg.f32 [[E:%f[0-9]+]], [[T]];
// CHECK-NEXT: fma.rn.f32 [[E]], [[XC]], 0f3FB8AA3B, [[E]];
// CHECK-NEXT: fma.rn.f32 [[E]], [[XC]], 0f32A57060, [[E]];
// CHECK-NEXT: mul.rn.f32 [[CE:%f[0-9]+]], [[E]], 0f3F317218;
// CHECK-NEXT: ex2.approx.f32 [[R:%f[0-9]+]], [[T]];
// CHECK-NEXT: fma.rn.f32 [[Y:%f[0-9]+]], [[R]], [[CE]], [[R]];
// CHECK-NEXT: setp.gt.f32 [[OVER:%p[0-9]+]], [[NEG]], 0f42B17217;
// CHECK-NEXT: selp.f32 [[EXP:%f[0-9]+]], 0f7F800000, [[Y]], [[OVER]];
// log (accurate by default): subnormals scaled by 2^23, m in [sqrt(1/2), sqrt(2)) from the
// bits, log(1 + f) = f - s (f - R), k ln 2 in two parts, special values selected last.
// CHECK-NEXT: setp.lt.f32 [[SUB:%p[0-9]+]], [[EXP]], 0f00800000;
// CHECK:      sub.s32 [[IX:%r[0-9]+]], {{%r[0-9]+}}, 0x3F3504F3;
// CHECK-NEXT: shr.s32 {{%r[0-9]+}}, [[IX]], 23;
// s = f / (2 + f) by rcp.approx.ftz (2 + f lies in [1.7, 2.5]) and a multiplication.
// CHECK:      add.rn.f32 [[DEN:%f[0-9]+]], [[F:%f[0-9]+]], 0f40000000;
// CHECK-NEXT: rcp.approx.ftz.f32 [[RD:%f[0-9]+]], [[DEN]];
// CHECK-NEXT: mul.rn.f32 {{%f[0-9]+}}, [[F]], [[RD]];
// CHECK:      fma.rn.f32 [[L:%f[0-9]+]], [[KF:%f[0-9]+]], 0fB95E8083,
// CHECK-NEXT: fma.rn.f32 [[L]], [[KF]], 0f3F318000, [[L]];
// CHECK:      selp.f32 [[LOG:%f[0-9]+]], [[L]], {{%f[0-9]+}}, {{%p[0-9]+}};
// CHECK-NEXT: sqrt.rn.f32 [[SQRT:%f[0-9]+]], [[LOG]];
// rsqrt stays rsqrt.approx (approx_rsqrt, on by default).
// CHECK-NEXT: rsqrt.approx.f32 [[RSQRT:%f[0-9]+]], [[SQRT]];
// tanh (accurate by default): odd minimax polynomial below 0.9, else
// 1 - 2 / (2^(|x| 2 log2 e) + 1) with ex2.approx.ftz and rcp.approx.ftz (flushing changes no
// result there); the sign of x put back by copysign.
// CHECK-NOT:  tanh.approx
// CHECK:      abs.f32 [[TA:%f[0-9]+]], [[RSQRT]];
// CHECK:      fma.rn.f32 [[SMALL:%f[0-9]+]], {{%f[0-9]+}}, {{%f[0-9]+}}, [[RSQRT]];
// CHECK-NEXT: mul.rn.f32 [[T2:%f[0-9]+]], [[TA]], 0f4038AA3B;
// CHECK-NEXT: ex2.approx.ftz.f32 [[E2:%f[0-9]+]], [[T2]];
// CHECK-NEXT: add.rn.f32 [[DEN:%f[0-9]+]], [[E2]], 0f3F800000;
// CHECK-NEXT: rcp.approx.ftz.f32 [[R2:%f[0-9]+]], [[DEN]];
// CHECK-NEXT: fma.rn.f32 [[BIG:%f[0-9]+]], [[R2]], 0fC0000000, 0f3F800000;
// CHECK-NEXT: setp.lt.f32 [[P:%p[0-9]+]], [[TA]], 0f3F666666;
// CHECK-NEXT: selp.f32 [[SEL:%f[0-9]+]], [[SMALL]], [[BIG]], [[P]];
// CHECK-NEXT: copysign.f32 [[TANH:%f[0-9]+]], [[RSQRT]], [[SEL]];
// CHECK-NEXT: abs.f32 [[ABS:%f[0-9]+]], [[TANH]];
// Ordered lt (false on NaN), unordered ne (true on NaN).
// CHECK-NEXT: setp.lt.f32 [[LT:%p[0-9]+]], [[ABS]], [[A]];
// CHECK-NEXT: setp.neu.f32 [[NE:%p[0-9]+]], [[ABS]], [[A]];
// CHECK-NEXT: selp.f32 [[SEL:%f[0-9]+]], [[ABS]], [[A]], [[LT]];
// CHECK-NEXT: selp.f32 %f{{[0-9]+}}, [[SEL]], [[C]], [[NE]];

// CHECK-LABEL: .visible .entry math_f64(
// CHECK:      mov.f64 [[C:%fd[0-9]+]], 0d3FD0000000000000;
// CHECK-NEXT: add.rn.f64
// CHECK-NEXT: mul.rn.f64
// CHECK-NEXT: div.rn.f64 [[DIV:%fd[0-9]+]],
// max.f64 drops a NaN operand; the NaN test puts it back.
// CHECK-NEXT: max.f64 [[M:%fd[0-9]+]], [[DIV]], [[A:%fd[0-9]+]];
// CHECK-NEXT: setp.nan.f64 [[N:%p[0-9]+]], [[DIV]], [[A]];
// CHECK-NEXT: add.rn.f64 [[S:%fd[0-9]+]], [[DIV]], [[A]];
// CHECK-NEXT: selp.f64 [[MAX:%fd[0-9]+]], [[S]], [[M]], [[N]];
// CHECK-NEXT: min.f64 {{.*}}, [[MAX]], [[C]];
// CHECK:      sqrt.rn.f64 [[SQ:%fd[0-9]+]],
// CHECK-NEXT: sqrt.rn.f64 [[SQ2:%fd[0-9]+]], [[SQ]];
// CHECK-NEXT: rcp.rn.f64 {{.*}}, [[SQ2]];
// CHECK-NEXT: setp.ge.f64
// CHECK-NEXT: selp.f64

// CHECK-LABEL: .visible .entry convert(
// CHECK:      ld.global.b16 [[B:%h[0-9]+]],
// CHECK:      ld.global.b16 [[H:%h[0-9]+]],
// CHECK-NEXT: cvt.f32.bf16 {{%f[0-9]+}}, [[B]];
// CHECK-NEXT: cvt.f32.f16 {{%f[0-9]+}}, [[H]];
// CHECK-NEXT: add.rn.f32 [[S:%f[0-9]+]],
// CHECK-NEXT: cvt.rn.bf16.f32 {{%h[0-9]+}}, [[S]];
// CHECK-NEXT: cvt.rn.f16.f32 {{%h[0-9]+}}, [[S]];
// f16 <-> bf16 through f32 (exact widening, one rounding).
// CHECK-NEXT: cvt.f32.f16 [[HW:%f[0-9]+]], [[H]];
// CHECK-NEXT: cvt.rn.bf16.f32 {{%h[0-9]+}}, [[HW]];
// CHECK-NEXT: cvt.f32.bf16 [[BW:%f[0-9]+]], [[B]];
// CHECK-NEXT: cvt.rn.f16.f32 {{%h[0-9]+}}, [[BW]];
// CHECK-NEXT: cvt.f32.bf16 [[BW2:%f[0-9]+]], [[B]];
// CHECK-NEXT: cvt.f64.f32 {{%fd[0-9]+}}, [[BW2]];
// CHECK-NEXT: cvt.f64.f16 {{%fd[0-9]+}}, [[H]];
// CHECK-NEXT: cvt.f64.f32 {{%fd[0-9]+}}, [[S]];
// CHECK:      cvt.rn.f32.f64
// CHECK-NEXT: cvt.rn.bf16.f64
// CHECK-NEXT: cvt.rn.f16.f64
// CHECK-NEXT: cvt.rn.f32.s64
// CHECK-NEXT: cvt.rn.f64.s64
// CHECK-NEXT: cvt.rn.f64.s64 [[TD:%fd[0-9]+]],
// CHECK-NEXT: cvt.rn.bf16.f64 {{%h[0-9]+}}, [[TD]];
// CHECK-NEXT: cvt.rn.f16.s64
// bf16 arithmetic: widen, compute in f32, round back to nearest even.
// CHECK-NEXT: cvt.f32.bf16 [[X:%f[0-9]+]],
// CHECK-NEXT: cvt.f32.bf16 [[Y:%f[0-9]+]],
// CHECK-NEXT: mul.rn.f32 [[P:%f[0-9]+]], [[X]], [[Y]];
// CHECK-NEXT: cvt.rn.bf16.f32 {{%h[0-9]+}}, [[P]];
// CHECK:      max.NaN.f32
// CHECK:      cvt.f32.f16
// f16 exp: the accurate f32 sequence, then one rounding to f16.
// CHECK:      ex2.approx.f32
// CHECK-NEXT: fma.rn.f32
// CHECK-NEXT: setp.gt.f32
// CHECK-NEXT: selp.f32 [[E16:%f[0-9]+]],
// CHECK-NEXT: cvt.rn.f16.f32 {{%h[0-9]+}}, [[E16]];
// CHECK:      setp.le.f32
// CHECK-NEXT: selp.b16
// CHECK-NEXT: mov.b16 {{%h[0-9]+}}, 0x4000;
// CHECK-NEXT: mov.b16 {{%h[0-9]+}}, 0xB800;
// CHECK:      st.global.f64
// CHECK-NEXT: shl.b64
// CHECK-NEXT: add.s64
// CHECK-NEXT: st.global.b16
// CHECK:      st.global.b16

mgpu.func @math_f32(%x: !mgpu.ptr<f32>, %o: !mgpu.ptr<f32>) kernel {
  %t = mgpu.thread_id : index
  %a = mgpu.load %x[%t] : !mgpu.ptr<f32>
  %c = mloop.constant 1.5 : f32
  %add = mloop.add %a, %c : f32
  %sub = mloop.sub %add, %a : f32
  %mul = mloop.mul %sub, %a : f32
  %div = mloop.div %mul, %c : f32
  %max = mloop.max %div, %a : f32
  %min = mloop.min %max, %c : f32
  %pow = mloop.pow %min, %c : f32
  %neg = mloop.neg %pow : f32
  %exp = mloop.exp %neg : f32
  %log = mloop.log %exp : f32
  %sqrt = mloop.sqrt %log : f32
  %rsqrt = mloop.rsqrt %sqrt : f32
  %tanh = mloop.tanh %rsqrt : f32
  %abs = mloop.abs %tanh : f32
  %lt = mloop.cmp lt, %abs, %a : f32
  %ne = mloop.cmp ne, %abs, %a : f32
  %sel = mloop.select %lt, %abs, %a : f32
  %sel2 = mloop.select %ne, %sel, %c : f32
  mgpu.store %sel2, %o[%t] : !mgpu.ptr<f32>
  mgpu.return
}

mgpu.func @math_f64(%x: !mgpu.ptr<f64>, %o: !mgpu.ptr<f64>) kernel {
  %t = mgpu.thread_id : index
  %a = mgpu.load %x[%t] : !mgpu.ptr<f64>
  %c = mloop.constant 0.25 : f64
  %add = mloop.add %a, %c : f64
  %mul = mloop.mul %add, %a : f64
  %div = mloop.div %mul, %c : f64
  %max = mloop.max %div, %a : f64
  %min = mloop.min %max, %c : f64
  %sqrt = mloop.sqrt %min : f64
  %rsqrt = mloop.rsqrt %sqrt : f64
  %ge = mloop.cmp ge, %rsqrt, %a : f64
  %sel = mloop.select %ge, %rsqrt, %a : f64
  mgpu.store %sel, %o[%t] : !mgpu.ptr<f64>
  mgpu.return
}

mgpu.func @convert(%x: !mgpu.ptr<bf16>, %y: !mgpu.ptr<f16>, %o: !mgpu.ptr<f64>, %ob: !mgpu.ptr<bf16>, %oh: !mgpu.ptr<f16>) kernel {
  %t = mgpu.thread_id : index
  %b = mgpu.load %x[%t] : !mgpu.ptr<bf16>
  %h = mgpu.load %y[%t] : !mgpu.ptr<f16>
  %bf = mloop.convert %b : bf16 to f32
  %hf = mloop.convert %h : f16 to f32
  %s = mloop.add %bf, %hf : f32
  %sb = mloop.convert %s : f32 to bf16
  %sh = mloop.convert %s : f32 to f16
  %hb = mloop.convert %h : f16 to bf16
  %bh = mloop.convert %b : bf16 to f16
  %bd = mloop.convert %b : bf16 to f64
  %hd = mloop.convert %h : f16 to f64
  %sd = mloop.convert %s : f32 to f64
  %d = mloop.add %bd, %hd : f64
  %d2 = mloop.add %d, %sd : f64
  %df = mloop.convert %d2 : f64 to f32
  %db = mloop.convert %d2 : f64 to bf16
  %dh = mloop.convert %d2 : f64 to f16
  %tf = mloop.convert %t : index to f32
  %td = mloop.convert %t : index to f64
  %tb = mloop.convert %t : index to bf16
  %th = mloop.convert %t : index to f16
  %m = mloop.mul %sb, %hb : bf16
  %m2 = mloop.max %m, %db : bf16
  %m3 = mloop.add %m2, %tb : bf16
  %n = mloop.mul %sh, %bh : f16
  %n2 = mloop.exp %n : f16
  %n3 = mloop.add %n2, %dh : f16
  %n4 = mloop.add %n3, %th : f16
  %lt = mloop.cmp le, %m3, %sb : bf16
  %sel = mloop.select %lt, %m3, %sb : bf16
  %cb = mloop.constant 2.0 : bf16
  %ch = mloop.constant -0.5 : f16
  %m4 = mloop.mul %sel, %cb : bf16
  %n5 = mloop.mul %n4, %ch : f16
  %e = mloop.add %df, %tf : f32
  %ed = mloop.convert %e : f32 to f64
  %e2 = mloop.add %ed, %td : f64
  mgpu.store %e2, %o[%t] : !mgpu.ptr<f64>
  mgpu.store %m4, %ob[%t] : !mgpu.ptr<bf16>
  mgpu.store %n5, %oh[%t] : !mgpu.ptr<f16>
  mgpu.return
}
