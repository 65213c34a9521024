// mgpu.copy_async: cp.async.cg for 16 bytes (through L2 only), cp.async.ca for 4 and 8; the
// group ops are cp.async.commit_group and cp.async.wait_group. CTAs of more than 256 threads
// also get .minnctapersm 1 (ptxas otherwise may cap them at 64 registers and spill). A `stream`
// copy (a staged row read once) takes an evict-first L2 policy as its cache hint.
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry stage(
// CHECK:      .maxntid 512, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK:      shl.b64 [[DO:%rd[0-9]+]], [[I:%rd[0-9]+]], 1;
// CHECK-NEXT: add.s64 [[D:%rd[0-9]+]], [[S:%rd[0-9]+]], [[DO]];
// CHECK-NEXT: shl.b64 [[SO:%rd[0-9]+]], [[J:%rd[0-9]+]], 1;
// CHECK-NEXT: add.s64 [[G:%rd[0-9]+]], [[P:%rd[0-9]+]], [[SO]];
// CHECK-NEXT: cp.async.cg.shared.global {{\[}}[[D]]{{\]}}, {{\[}}[[G]]{{\]}}, 16;
// CHECK:      cp.async.ca.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 8;
// CHECK:      cp.async.ca.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 4;
// CHECK-NEXT: cp.async.commit_group;
// CHECK-NEXT: cp.async.wait_group 1;
// CHECK:      ld.shared.v4.b32
mgpu.func @stage(%g: !mgpu.ptr<bf16>, %gf: !mgpu.ptr<f32>, %o: !mgpu.ptr<bf16>, %i: index, %j: index) kernel attributes {max_threads = 512} {
  %s = mgpu.dynamic_shared : !mgpu.ptr<bf16, 3>
  %sf = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
  mgpu.copy_async %s[%i], %g[%j] {width = 8} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
  mgpu.copy_async %s[%i], %g[%j] {width = 4} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
  mgpu.copy_async %sf[%i], %gf[%j] {width = 1} : !mgpu.ptr<f32, 3>, !mgpu.ptr<f32>
  mgpu.copy_async_commit
  mgpu.copy_async_wait {pending = 1}
  %a, %b, %c, %d, %e, %f, %h, %k = mgpu.load_vec %s[%i] : !mgpu.ptr<bf16, 3> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
  mgpu.store_vec %a, %b, %c, %d, %e, %f, %h, %k, %o[%j] : !mgpu.ptr<bf16>
  mgpu.return
}

// A CTA of 256 threads: no occupancy directive.
// CHECK-LABEL: .visible .entry small(
// CHECK:      .maxntid 256, 1, 1
// CHECK-NEXT: {
mgpu.func @small() kernel attributes {max_threads = 256} {
  mgpu.return
}

// CHECK-LABEL: .visible .entry streamed(
// CHECK:      createpolicy.fractional.L2::evict_first.b64 [[POL:%rd[0-9]+]], 1.0;
// CHECK-NEXT: cp.async.cg.shared.global.L2::cache_hint [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, [[POL]];
// CHECK:      cp.async.ca.shared.global.L2::cache_hint [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 4, %rd{{[0-9]+}};
// CHECK-NOT:  cache_hint
// CHECK:      cp.async.commit_group;
mgpu.func @streamed(%g: !mgpu.ptr<bf16>, %i: index, %j: index) kernel attributes {max_threads = 256} {
  %s = mgpu.dynamic_shared : !mgpu.ptr<bf16, 3>
  mgpu.copy_async %s[%i], %g[%j] {stream, width = 8} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
  mgpu.copy_async %s[%i], %g[%j] {stream, width = 2} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
  mgpu.copy_async %s[%i], %g[%j] {width = 8} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
  mgpu.copy_async_commit
  mgpu.return
}
