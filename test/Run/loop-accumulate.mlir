// The known algorithm's partial accumulation, by hand at the loop level: rows are split
// into 4 groups (row i goes to split i rem 4), each split accumulates per-column partial
// sums into an fp32 workspace [4, N] with `mloop.accumulate sum`, and a second, tiny
// `mloop.reduce` sums the 4 partials. A column max goes through `accumulate max` into a
// buffer filled with -inf. NumPy checks both against the echoed input.
// REQUIRES: numpy
//
// RUN: morf-run %s --random M=45,N=24 --seed 11 --output-dir %t/a | FileCheck %s
// RUN: python3 %S/Inputs/loop_ref.py accumulate %t/a | FileCheck --check-prefix=OK %s
// Fewer rows than splits leaves partials at 0.
// RUN: morf-run %s --random M=2,N=3 --output-dir %t/b
// RUN: python3 %S/Inputs/loop_ref.py accumulate %t/b

// CHECK:      result0: !mloop.buffer<?x?xbf16> [45, 24] -> {{.*}}/a/result0.npy
// CHECK-NEXT: result1: !mloop.buffer<?xf32> [24] -> {{.*}}/a/result1.npy
// CHECK-NEXT: result2: !mloop.buffer<?xf32> [24] -> {{.*}}/a/result2.npy
// OK: accumulate: ok

func.func @partial_colsum(%x: !mloop.buffer<?x?xbf16> {morf.dims = ["M", "N"]})
    -> (!mloop.buffer<?x?xbf16>, !mloop.buffer<?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c4 = mloop.constant 4 : index
  %zero = mloop.constant 0.0 : f32
  %ninf = mloop.constant 0xFF800000 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xbf16>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xbf16>
  %ws = mloop.alloc(%n) : !mloop.buffer<4x?xf32>
  mloop.fill %zero, %ws : !mloop.buffer<4x?xf32>
  %mx = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.fill %ninf, %mx : !mloop.buffer<?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %s = mloop.rem %i, %c4 : index
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xbf16>
    %f = mloop.convert %v : bf16 to f32
    mloop.accumulate sum %f, %ws[%s, %j] : !mloop.buffer<4x?xf32>
    mloop.accumulate max %f, %mx[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  %out = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
    %t = mloop.reduce sum (%s) = (%c0) to (%c4) step (%c1) init(%zero) : f32 {
      %p = mloop.load %ws[%s, %j] : !mloop.buffer<4x?xf32>
      mloop.yield %p : f32
    }
    mloop.store %t, %out[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  mloop.dealloc %ws : !mloop.buffer<4x?xf32>
  return %x, %out, %mx : !mloop.buffer<?x?xbf16>, !mloop.buffer<?xf32>, !mloop.buffer<?xf32>
}
