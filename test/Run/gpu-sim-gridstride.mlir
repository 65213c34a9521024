// A grid smaller than the work: 3 blocks of 32 threads square N elements with a
// grid-stride loop (`for i = gid; i < n; i += grid_dim * block_dim`), so threads
// make different numbers of trips.
// REQUIRES: numpy
//
// RUN: morf-run %s --device sim --random N=1000 --seed 4 --output-dir %t/a | FileCheck %s
// RUN: python3 %S/Inputs/gpu_ref.py gridstride %t/a | FileCheck --check-prefix=OK %s
// Fewer elements than threads.
// RUN: morf-run %s --device sim --random N=10 --output-dir %t/b
// RUN: python3 %S/Inputs/gpu_ref.py gridstride %t/b

// CHECK:      result0: !mloop.buffer<?xf32> [1000] -> {{.*}}/a/result0.npy
// CHECK-NEXT: result1: !mloop.buffer<?xf32> [1000] -> {{.*}}/a/result1.npy
// OK: gridstride: ok

mgpu.func @square(%x: !mgpu.ptr<f32>, %y: !mgpu.ptr<f32>, %n: index) kernel attributes {max_threads = 32 : i64} {
  %t = mgpu.thread_id : index
  %b = mgpu.block_id : index
  %bd = mgpu.block_dim : index
  %gd = mgpu.grid_dim : index
  %bt = mloop.mul %b, %bd : index
  %gid = mloop.add %bt, %t : index
  %stride = mloop.mul %gd, %bd : index
  mloop.for %i = %gid to %n step %stride {
    %v = mgpu.load %x[%i] : !mgpu.ptr<f32>
    %s = mloop.mul %v, %v : f32
    mgpu.store %s, %y[%i] : !mgpu.ptr<f32>
    mloop.yield
  }
  mgpu.return
}

func.func @main(%x: !mloop.buffer<?xf32> {morf.dims = ["N"]}) -> (!mloop.buffer<?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c3 = mloop.constant 3 : index
  %c32 = mloop.constant 32 : index
  %n = mloop.dim %x, 0 : !mloop.buffer<?xf32>
  %y = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mgpu.launch @square blocks(%c3) threads(%c32) shared(%c0) args(%x, %y, %n) : !mloop.buffer<?xf32>, !mloop.buffer<?xf32>, index
  return %x, %y : !mloop.buffer<?xf32>, !mloop.buffer<?xf32>
}
