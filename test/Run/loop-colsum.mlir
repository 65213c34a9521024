// A hand-written loop-level column sum: a parallel loop over columns, each an fp32
// `mloop.reduce` along M (the outer, "column" reduction of the mixed-order problem).
// REQUIRES: numpy
//
// RUN: morf-run %s --random M=53,N=17 --seed 5 --output-dir %t/a | FileCheck %s
// RUN: python3 %S/Inputs/loop_ref.py colsum %t/a | FileCheck --check-prefix=OK %s
// The same function with an f32 input file: the file binds M and N.
// RUN: morf-run %s --input x=%t/a/result0.npy --output-dir %t/b
// RUN: cmp %t/a/result1.npy %t/b/result1.npy

// CHECK:      result0: !mloop.buffer<?x?xf32> [53, 17] -> {{.*}}/a/result0.npy
// CHECK-NEXT: result1: !mloop.buffer<?xf32> [17] -> {{.*}}/a/result1.npy
// OK: colsum: ok

func.func @colsum(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]})
    -> (!mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %out = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
    %s = mloop.reduce sum (%i) = (%c0) to (%m) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %s, %out[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return %x, %out : !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>
}
