// A hand-written loop-level row sum: a parallel loop over rows, each an fp32
// `mloop.reduce` along N over bf16 elements. morf-run binds the `!mloop.buffer`
// argument like a tensor (by name, `morf.dims`, --random) and writes the returned
// buffers as result<i>.npy; NumPy recomputes the sums from the echoed input.
// REQUIRES: numpy
//
// RUN: morf-run %s --random M=37,N=100 --seed 3 --output-dir %t/a | FileCheck %s
// RUN: python3 %S/Inputs/loop_ref.py rowsum %t/a | FileCheck --check-prefix=OK %s
// RUN: morf-run %s --random M=1,N=1 --output-dir %t/b
// RUN: python3 %S/Inputs/loop_ref.py rowsum %t/b
// An empty row gives the init (0).
// RUN: morf-run %s --random M=3,N=0 --output-dir %t/c -v | FileCheck --check-prefix=EMPTY %s

// CHECK:      result0: !mloop.buffer<?x?xbf16> [37, 100] -> {{.*}}/a/result0.npy
// CHECK-NEXT: result1: !mloop.buffer<?xf32> [37] -> {{.*}}/a/result1.npy
// OK: rowsum: ok
// EMPTY: result1: !mloop.buffer<?xf32> [3] -> {{.*}} min=0.000000e0 max=0.000000e0 mean=0.000000e0

func.func @rowsum(%x: !mloop.buffer<?x?xbf16> {morf.dims = ["M", "N"]})
    -> (!mloop.buffer<?x?xbf16>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xbf16>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xbf16>
  %out = mloop.alloc(%m) : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %s = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xbf16>
      %f = mloop.convert %v : bf16 to f32
      mloop.yield %f : f32
    }
    mloop.store %s, %out[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return %x, %out : !mloop.buffer<?x?xbf16>, !mloop.buffer<?xf32>
}
