// A GPU-level module (a row-sum kernel and its host function) run on a real GPU, each
// output checked against the reference interpreter run of the same module (--check, which
// simulates the kernel on the CPU).
// REQUIRES: cuda
//
// RUN: morf-run %s --device gpu --check --random M=37,N=1000 --output-dir %t/a | FileCheck %s
// RUN: morf-run %s --device gpu --check --random M=5,N=1 --output-dir %t/b | FileCheck %s
// Without --device, a module with kernels runs on the GPU when there is one.
// RUN: morf-run %s --check --random M=3,N=64 --output-dir %t/c | FileCheck %s
// An empty grid launches nothing.
// RUN: morf-run %s --device gpu --random M=0,N=64 --output-dir %t/d | FileCheck --check-prefix=EMPTY %s

// CHECK: result0: !mloop.buffer<?xf32> [{{[0-9]+}}] -> {{.*}}result0.npy
// CHECK-NEXT: check result0: rel_err={{.*}} (tol 1e-05) ok
// EMPTY: result0: !mloop.buffer<?xf32> [0] -> {{.*}}result0.npy

mgpu.func @rowsum(%x: !mgpu.ptr<bf16>, %out: !mgpu.ptr<f32>, %n: index) kernel attributes {max_threads = 1024 : i64} {
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

func.func @main(%x: !mloop.buffer<?x?xbf16> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?xf32> {
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xbf16>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xbf16>
  %out = mloop.alloc(%m) : !mloop.buffer<?xf32>
  // The kernel overwrites every element; the fill checks that fills and launches stay ordered.
  %nan = mloop.constant 7.0 : f32
  mloop.fill %nan, %out : !mloop.buffer<?xf32>
  %t = mloop.constant 256 : index
  %s = mloop.constant 0 : index
  mgpu.launch @rowsum blocks(%m) threads(%t) shared(%s) args(%x, %out, %n) : !mloop.buffer<?x?xbf16>, !mloop.buffer<?xf32>, index
  return %out : !mloop.buffer<?xf32>
}
