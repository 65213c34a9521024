// An elementwise kernel on the CPU simulator: each thread handles 8 bf16 elements
// with one 16-byte vector load and two 4 x f32 vector stores; the last thread takes
// the tail with a scalar loop. NumPy recomputes y = 2 x + 1 from the echoed input.
// REQUIRES: numpy
//
// RUN: morf-run %s --device sim --random N=1003 --seed 1 --output-dir %t/a | FileCheck %s
// RUN: python3 %S/Inputs/gpu_ref.py elementwise %t/a | FileCheck --check-prefix=OK %s
// Exactly one vector, and only a tail.
// RUN: morf-run %s --device sim --random N=8 --output-dir %t/b
// RUN: python3 %S/Inputs/gpu_ref.py elementwise %t/b
// RUN: morf-run %s --device sim --random N=5 --output-dir %t/c
// RUN: python3 %S/Inputs/gpu_ref.py elementwise %t/c
// The interpreter runs the same program: a launch's semantics is the simulator.
// RUN: morf-run %s --device interp --random N=77 --output-dir %t/d
// RUN: python3 %S/Inputs/gpu_ref.py elementwise %t/d

// CHECK:      result0: !mloop.buffer<?xbf16> [1003] -> {{.*}}/a/result0.npy
// CHECK-NEXT: result1: !mloop.buffer<?xf32> [1003] -> {{.*}}/a/result1.npy
// OK: elementwise: ok

mgpu.func @axpb(%x: !mgpu.ptr<bf16>, %y: !mgpu.ptr<f32>, %n: index) kernel attributes {max_threads = 64 : i64} {
  %t = mgpu.thread_id : index
  %b = mgpu.block_id : index
  %bd = mgpu.block_dim : index
  %c1 = mloop.constant 1 : index
  %c4 = mloop.constant 4 : index
  %c8 = mloop.constant 8 : index
  %two = mloop.constant 2.0 : f32
  %one = mloop.constant 1.0 : f32
  %bt = mloop.mul %b, %bd : index
  %g = mloop.add %bt, %t : index
  %base = mloop.mul %g, %c8 : index
  %end = mloop.add %base, %c8 : index
  %full = mloop.cmp le, %end, %n : index
  mgpu.if %full {
    %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7 = mgpu.load_vec %x[%base] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
    %f0 = mloop.convert %v0 : bf16 to f32
    %f1 = mloop.convert %v1 : bf16 to f32
    %f2 = mloop.convert %v2 : bf16 to f32
    %f3 = mloop.convert %v3 : bf16 to f32
    %f4 = mloop.convert %v4 : bf16 to f32
    %f5 = mloop.convert %v5 : bf16 to f32
    %f6 = mloop.convert %v6 : bf16 to f32
    %f7 = mloop.convert %v7 : bf16 to f32
    %m0 = mloop.mul %f0, %two : f32
    %m1 = mloop.mul %f1, %two : f32
    %m2 = mloop.mul %f2, %two : f32
    %m3 = mloop.mul %f3, %two : f32
    %m4 = mloop.mul %f4, %two : f32
    %m5 = mloop.mul %f5, %two : f32
    %m6 = mloop.mul %f6, %two : f32
    %m7 = mloop.mul %f7, %two : f32
    %y0 = mloop.add %m0, %one : f32
    %y1 = mloop.add %m1, %one : f32
    %y2 = mloop.add %m2, %one : f32
    %y3 = mloop.add %m3, %one : f32
    %y4 = mloop.add %m4, %one : f32
    %y5 = mloop.add %m5, %one : f32
    %y6 = mloop.add %m6, %one : f32
    %y7 = mloop.add %m7, %one : f32
    mgpu.store_vec %y0, %y1, %y2, %y3, %y[%base] : !mgpu.ptr<f32>
    %hi = mloop.add %base, %c4 : index
    mgpu.store_vec %y4, %y5, %y6, %y7, %y[%hi] : !mgpu.ptr<f32>
    mgpu.yield
  } else {
    // Zero trips for every thread past the end; the tail for the one that straddles it.
    mloop.for %i = %base to %n step %c1 {
      %v = mgpu.load %x[%i] {nc} : !mgpu.ptr<bf16>
      %f = mloop.convert %v : bf16 to f32
      %m = mloop.mul %f, %two : f32
      %r = mloop.add %m, %one : f32
      mgpu.store %r, %y[%i] : !mgpu.ptr<f32>
      mloop.yield
    }
    mgpu.yield
  }
  mgpu.return
}

func.func @main(%x: !mloop.buffer<?xbf16> {morf.dims = ["N"]}) -> (!mloop.buffer<?xbf16>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c64 = mloop.constant 64 : index
  %c511 = mloop.constant 511 : index
  %c512 = mloop.constant 512 : index
  %n = mloop.dim %x, 0 : !mloop.buffer<?xbf16>
  %y = mloop.alloc(%n) : !mloop.buffer<?xf32>
  %r = mloop.add %n, %c511 : index
  %blocks = mloop.div %r, %c512 : index
  mgpu.launch @axpb blocks(%blocks) threads(%c64) shared(%c0) args(%x, %y, %n) : !mloop.buffer<?xbf16>, !mloop.buffer<?xf32>, index
  return %x, %y : !mloop.buffer<?xbf16>, !mloop.buffer<?xf32>
}
