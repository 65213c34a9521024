// A row reduction on the CPU simulator: one block of 128 threads per row; each thread
// sums a strided slice of the row (an `mloop.for` whose trip count differs between
// threads), each warp combines its partial sums with `warp_reduce`, lane 0 of each warp
// writes them to shared memory, and after a barrier thread 0 adds the 4 warp sums.
// REQUIRES: numpy
//
// RUN: morf-run %s --device sim --random M=37,N=300 --seed 2 --output-dir %t/a | FileCheck %s
// RUN: python3 %S/Inputs/gpu_ref.py rowsum %t/a | FileCheck --check-prefix=OK %s
// Rows shorter than a block leave threads without work (and whole warps idle).
// RUN: morf-run %s --device sim --random M=5,N=33 --output-dir %t/b
// RUN: python3 %S/Inputs/gpu_ref.py rowsum %t/b
// RUN: morf-run %s --device sim --random M=2,N=0 --output-dir %t/c
// RUN: python3 %S/Inputs/gpu_ref.py rowsum %t/c

// CHECK:      result0: !mloop.buffer<?x?xf32> [37, 300] -> {{.*}}/a/result0.npy
// CHECK-NEXT: result1: !mloop.buffer<?xf32> [37] -> {{.*}}/a/result1.npy
// OK: rowsum: ok

mgpu.func @rowsum(%x: !mgpu.ptr<f32>, %out: !mgpu.ptr<f32>, %n: index) kernel attributes {max_threads = 128 : i64} {
  %t = mgpu.thread_id : index
  %row = mgpu.block_id : index
  %bd = mgpu.block_dim : index
  %lane = mgpu.lane_id : index
  %warp = mgpu.warp_id : index
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c32 = mloop.constant 32 : index
  %zero = mloop.constant 0.0 : f32
  %rowbase = mloop.mul %row, %n : index
  %s = mloop.for %j = %t to %n step %bd iter_args(%acc = %zero) -> (f32) {
    %k = mloop.add %rowbase, %j : index
    %v = mgpu.load %x[%k] {nc} : !mgpu.ptr<f32>
    %a = mloop.add %acc, %v : f32
    mloop.yield %a : f32
  }
  %ws = mgpu.warp_reduce sum %s : f32
  %sh = mgpu.shared_alloc {size = 32 : i64} : !mgpu.ptr<f32, 3>
  %first_lane = mloop.cmp eq, %lane, %c0 : index
  mgpu.if %first_lane {
    mgpu.store %ws, %sh[%warp] : !mgpu.ptr<f32, 3>
    mgpu.yield
  }
  mgpu.barrier
  %nw = mloop.div %bd, %c32 : index
  %first = mloop.cmp eq, %t, %c0 : index
  mgpu.if %first {
    %tot = mloop.for %w = %c0 to %nw step %c1 iter_args(%acc = %zero) -> (f32) {
      %p = mgpu.load %sh[%w] : !mgpu.ptr<f32, 3>
      %a = mloop.add %acc, %p : f32
      mloop.yield %a : f32
    }
    mgpu.store %tot, %out[%row] : !mgpu.ptr<f32>
    mgpu.yield
  }
  mgpu.return
}

func.func @main(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c128 = mloop.constant 128 : index
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %out = mloop.alloc(%m) : !mloop.buffer<?xf32>
  mgpu.launch @rowsum blocks(%m) threads(%c128) shared(%c0) args(%x, %out, %n) : !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>, index
  return %x, %out : !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>
}
