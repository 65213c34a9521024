// The `stream` hint of a global load is cache streaming (`.cs`, evict-first in L1 and L2),
// with or without `nc`; a load without it, and a shared-memory load, keep the plain forms.
// RUN: morf-opt %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry streamed(
// CHECK: ld.global.cs.nc.v4.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, [%rd{{[0-9]+}}];
// CHECK: ld.global.cs.f32 %f{{[0-9]+}}, [%rd{{[0-9]+}}];
// CHECK: ld.global.nc.f32 %f{{[0-9]+}}, [%rd{{[0-9]+}}];
// CHECK: ld.shared.f32 %f{{[0-9]+}}, [%rd{{[0-9]+}}];
// CHECK-NOT: .cs
// CHECK: ret;
mgpu.func @streamed(%x: !mgpu.ptr<f32>, %y: !mgpu.ptr<f32>, %i: index) kernel attributes {max_threads = 32} {
  %a, %b, %c, %d = mgpu.load_vec %x[%i] {nc, stream} : !mgpu.ptr<f32> -> f32, f32, f32, f32
  %e = mgpu.load %y[%i] {stream} : !mgpu.ptr<f32>
  %f = mgpu.load %x[%i] {nc} : !mgpu.ptr<f32>
  %s = mgpu.shared_alloc {size = 32 : i64} : !mgpu.ptr<f32, 3>
  %g = mgpu.load %s[%i] {stream} : !mgpu.ptr<f32, 3>
  %t = mloop.add %a, %e : f32
  %u = mloop.add %t, %f : f32
  %w = mloop.add %u, %g : f32
  mgpu.store %w, %y[%i] : !mgpu.ptr<f32>
  mgpu.return
}
