// loop-interchange: permutes the dimensions of a top-level mloop.parallel (bounds, steps
// and ivs together); the body is unchanged, results are identical.
// REQUIRES: numpy
//
// RUN: morf-opt %s --loop-interchange='nest=0 perm=1,0' | FileCheck %s
// RUN: morf-opt %s --pass-pipeline='builtin.module(func.func(loop-interchange{nest=0 perm=1,0}))' | FileCheck %s
//
// Running it gives the same results as without the transform.
// RUN: morf-run %s --random M=37,N=100 --output-dir %t/ref
// RUN: morf-opt %s --loop-interchange='nest=0 perm=1,0' | morf-run - --random M=37,N=100 --output-dir %t/out
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/out --exact
//
// Errors: a nest that does not exist, a nest that is not an mloop.parallel, a bad perm.
// RUN: not morf-opt %s --loop-interchange='nest=2 perm=1,0' 2>&1 | FileCheck --check-prefix=RANGE %s
// RUN: not morf-opt %s --loop-interchange='nest=1 perm=0' 2>&1 | FileCheck --check-prefix=SHAPE %s
// RUN: not morf-opt %s --loop-interchange='nest=0 perm=0,0' 2>&1 | FileCheck --check-prefix=PERM %s
// RUN: not morf-opt %s --loop-interchange='nest=0 perm=1,0,2' 2>&1 | FileCheck --check-prefix=PERM3 %s
// RUN: not morf-opt %s --loop-interchange='nest=0' 2>&1 | FileCheck --check-prefix=OPT %s
// RUN: not morf-opt %s --loop-interchange='nest=0 perm=a' 2>&1 | FileCheck --check-prefix=OPT2 %s

// CHECK-LABEL: func.func @rowsum
// CHECK:       mloop.parallel (%[[J:[a-z0-9_]+]], %[[I:[a-z0-9_]+]]) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
// CHECK-NEXT:    %[[V:.*]] = mloop.load %x[%[[I]], %[[J]]]
// CHECK-NEXT:    %[[E:.*]] = mloop.exp %[[V]] : f32
// CHECK-NEXT:    mloop.store %[[E]], %y[%[[I]], %[[J]]]
// CHECK-NEXT:    mloop.yield
// CHECK:       mloop.for
// RANGE: error: 'func.func' op has no loop nest nest=2: it has 2 top-level 'mloop.parallel'/'mloop.for' nests
// SHAPE: error: 'mloop.for' op cannot be interchanged: only 'mloop.parallel' nests can be interchanged
// PERM: error: 'mloop.parallel' op cannot be interchanged: perm=0,0 is not a permutation of the 2 dimensions of the nest
// PERM3: error: 'mloop.parallel' op cannot be interchanged: perm=1,0,2 is not a permutation of the 2 dimensions of the nest
// OPT: error: pass 'loop-interchange': option 'perm' is required
// OPT2: error: pass 'loop-interchange': option 'perm' expects a comma-separated list of unsigned integers
func.func @rowsum(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?x?xf32>, !mloop.buffer<f32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %y = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    %e = mloop.exp %v : f32
    mloop.store %e, %y[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  %zero = mloop.constant 0.0 : f32
  %s = mloop.alloc() : !mloop.buffer<f32>
  %r = mloop.for %i = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = mloop.load %y[%i, %c0] : !mloop.buffer<?x?xf32>
    %a = mloop.add %acc, %v : f32
    mloop.yield %a : f32
  }
  mloop.store %r, %s[] : !mloop.buffer<f32>
  return %y, %s : !mloop.buffer<?x?xf32>, !mloop.buffer<f32>
}
