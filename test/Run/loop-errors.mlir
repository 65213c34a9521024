// Loop-level run-time errors are diagnostics at the op, never a panic: an
// out-of-bounds load names the op, the index and the shape; a non-positive step is
// rejected.
//
// RUN: not morf-run %s --entry oob --random N=4 2>&1 | FileCheck --check-prefix=OOB %s
// OOB: loop-errors.mlir:21:10: error: 'mloop.load' op index 4 is out of bounds for dim 0 of size 4 (indices [4], shape [4])
//
// RUN: not morf-run %s --entry step --random N=4 2>&1 | FileCheck --check-prefix=STEP %s
// STEP: error: 'mloop.for' op step 0 must be positive
//
// RUN: not morf-run %s --entry store_oob --random N=3 2>&1 | FileCheck --check-prefix=STORE %s
// STORE: error: 'mloop.store' op index -1 is out of bounds for dim 0 of size 3

func.func @oob(%x: !mloop.buffer<?xf32> {morf.dims = ["N"]}) -> !mloop.buffer<?xf32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %n = mloop.dim %x, 0 : !mloop.buffer<?xf32>
  %m = mloop.add %n, %c1 : index
  %zero = mloop.constant 0.0 : f32
  %s = mloop.for %i = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
    %t = mloop.add %acc, %v : f32
    mloop.yield %t : f32
  }
  return %x : !mloop.buffer<?xf32>
}

func.func @step(%x: !mloop.buffer<?xf32> {morf.dims = ["N"]}) -> !mloop.buffer<?xf32> {
  %c0 = mloop.constant 0 : index
  %n = mloop.dim %x, 0 : !mloop.buffer<?xf32>
  mloop.for %i = %c0 to %n step %c0 {
    mloop.yield
  }
  return %x : !mloop.buffer<?xf32>
}

func.func @store_oob(%x: !mloop.buffer<?xf32> {morf.dims = ["N"]}) -> !mloop.buffer<?xf32> {
  %c = mloop.constant -1 : index
  %zero = mloop.constant 0.0 : f32
  %d = mloop.add %c, %c : index
  %e = mloop.sub %d, %c : index
  mloop.store %zero, %x[%e] : !mloop.buffer<?xf32>
  return %x : !mloop.buffer<?xf32>
}
