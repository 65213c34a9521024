// An elementwise bf16 kernel: 8-wide vector loads (four 32-bit words split into bf16
// halves), a scalar read-only load, bf16 arithmetic through f32 and a vector store.
// RUN: morf-opt %s --emit=ptx | FileCheck %s
// RUN: morf-opt %s --emit=ptx --ptx-version=8.3 --ptx-target=sm_100 | FileCheck --check-prefix=OPTS %s

// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_90
// CHECK-NEXT: .address_size 64
// CHECK-NOT:  dyn_smem
// CHECK:      .visible .entry add_bf16(
// CHECK-NEXT:   .param .u64 add_bf16_param_0,
// CHECK:        .param .u64 add_bf16_param_3
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 256, 1, 1
// CHECK-NEXT: {
// CHECK:      ld.param.u64 [[P0:%rd[0-9]+]], [add_bf16_param_0];
// CHECK-NEXT: cvta.to.global.u64 [[X:%rd[0-9]+]], [[P0]];
// CHECK:      ld.param.u64 %rd{{[0-9]+}}, [add_bf16_param_3];
// CHECK-NEXT: mov.u32 [[T:%r[0-9]+]], %tid.x;
// CHECK-NEXT: cvt.u64.u32 %rd{{[0-9]+}}, [[T]];
// CHECK-NEXT: mov.u32 [[B:%r[0-9]+]], %ctaid.x;
// CHECK:      mov.u32 [[BD:%r[0-9]+]], %ntid.x;
// CHECK:      mov.u64 [[C8:%rd[0-9]+]], 8;
// CHECK:      mul.lo.s64 [[I:%rd[0-9]+]], %rd{{[0-9]+}}, [[C8]];
// CHECK-NEXT: shl.b64 [[OFF:%rd[0-9]+]], [[I]], 1;
// CHECK-NEXT: add.s64 [[A:%rd[0-9]+]], [[X]], [[OFF]];
// CHECK-NEXT: ld.global.nc.v4.b32 {[[W0:%r[0-9]+]], [[W1:%r[0-9]+]], [[W2:%r[0-9]+]], [[W3:%r[0-9]+]]}, {{\[}}[[A]]{{\]}};
// CHECK-NEXT: mov.b32 {[[H0:%h[0-9]+]], [[H1:%h[0-9]+]]}, [[W0]];
// CHECK-NEXT: mov.b32 {%h{{[0-9]+}}, %h{{[0-9]+}}}, [[W1]];
// CHECK-NEXT: mov.b32 {%h{{[0-9]+}}, %h{{[0-9]+}}}, [[W2]];
// CHECK-NEXT: mov.b32 {%h{{[0-9]+}}, %h{{[0-9]+}}}, [[W3]];
// CHECK:      ld.global.nc.b16 [[Y:%h[0-9]+]], [%rd{{[0-9]+}}];
// CHECK-NEXT: cvt.f32.bf16 [[F0:%f[0-9]+]], [[H0]];
// CHECK-NEXT: cvt.f32.bf16 [[F1:%f[0-9]+]], [[Y]];
// CHECK-NEXT: add.rn.f32 [[S:%f[0-9]+]], [[F0]], [[F1]];
// CHECK-NEXT: cvt.rn.bf16.f32 [[SH:%h[0-9]+]], [[S]];
// CHECK:      mov.b32 [[V0:%r[0-9]+]], {[[SH]], [[H1]]};
// CHECK-NEXT: mov.b32 [[V1:%r[0-9]+]], {%h{{[0-9]+}}, %h{{[0-9]+}}};
// CHECK-NEXT: mov.b32 [[V2:%r[0-9]+]], {%h{{[0-9]+}}, %h{{[0-9]+}}};
// CHECK-NEXT: mov.b32 [[V3:%r[0-9]+]], {%h{{[0-9]+}}, %h{{[0-9]+}}};
// CHECK-NEXT: st.global.v4.b32 [%rd{{[0-9]+}}], {[[V0]], [[V1]], [[V2]], [[V3]]};
// CHECK-NEXT: ret;
// CHECK-NEXT: }

// OPTS:      .version 8.3
// OPTS-NEXT: .target sm_100

mgpu.func @add_bf16(%x: !mgpu.ptr<bf16>, %y: !mgpu.ptr<bf16>, %out: !mgpu.ptr<bf16>, %n: index) kernel attributes {max_threads = 256 : i64, morf.bench} {
  %t = mgpu.thread_id : index
  %b = mgpu.block_id : index
  %bd = mgpu.block_dim : index
  %c8 = mloop.constant 8 : index
  %base = mloop.mul %b, %bd : index
  %g = mloop.add %base, %t : index
  %i = mloop.mul %g, %c8 : index
  %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7 = mgpu.load_vec %x[%i] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
  %b0 = mgpu.load %y[%i] {nc} : !mgpu.ptr<bf16>
  %s0 = mloop.add %a0, %b0 : bf16
  mgpu.store_vec %s0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %out[%i] : !mgpu.ptr<bf16>
  mgpu.return
}
