// loop-split: strip-mines one dimension: an outer dimension with step size*step and an inner
// loop over [outer, min(outer + size*step, ub)) holding the old body. Results are identical.
// REQUIRES: numpy
//
// RUN: morf-opt %s --loop-split='nest=0 dim=1 size=16' | FileCheck %s
// RUN: morf-opt %s --pass-pipeline='builtin.module(func.func(loop-split{nest=0 dim=0 size=4 inner=for}))' \
// RUN:   | FileCheck --check-prefix=FOR %s
// RUN: morf-opt %s --loop-split='nest=1 size=8' | FileCheck --check-prefix=ITER %s
//
// Running it gives the same results as without the transform (37 and 100 are not
// multiples of the sizes, so the last inner loop is partial).
// RUN: morf-run %s --random M=37,N=100 --output-dir %t/ref
// RUN: morf-opt %s --loop-split='nest=0 dim=1 size=16' | morf-run - --random M=37,N=100 --output-dir %t/a
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/a --exact
// RUN: morf-opt %s --loop-split='nest=0 dim=0 size=4 inner=for' | morf-run - --random M=37,N=100 --output-dir %t/b
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/b --exact
// RUN: morf-opt %s --loop-split='nest=1 size=8' | morf-run - --random M=37,N=100 --output-dir %t/c
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/c --exact
//
// Errors.
// RUN: not morf-opt %s --loop-split='nest=0 dim=2 size=4' 2>&1 | FileCheck --check-prefix=DIM %s
// RUN: not morf-opt %s --loop-split='nest=1 dim=1 size=4' 2>&1 | FileCheck --check-prefix=DIMFOR %s
// RUN: not morf-opt %s --loop-split='nest=1 size=4 inner=parallel' 2>&1 | FileCheck --check-prefix=ITERPAR %s
// RUN: not morf-opt %s --loop-split='nest=5 size=4' 2>&1 | FileCheck --check-prefix=RANGE %s
// RUN: not morf-opt %s --loop-split='nest=0 size=0' 2>&1 | FileCheck --check-prefix=SIZE0 %s
// RUN: not morf-opt %s --loop-split='nest=0' 2>&1 | FileCheck --check-prefix=NOSIZE %s
// RUN: not morf-opt %s --loop-split='size=2 inner=serial' 2>&1 | FileCheck --check-prefix=INNER %s

// CHECK-LABEL: func.func @f
// CHECK:       %[[S:.*]] = mloop.constant 16 : index
// CHECK-NEXT:  mloop.parallel (%i, %[[JO:[a-z0-9_]+]]) = (%c0, %c0) to (%m, %n) step (%c1, %[[S]]) {
// CHECK-NEXT:    %[[E:.*]] = mloop.add %[[JO]], %[[S]] : index
// CHECK-NEXT:    %[[U:.*]] = mloop.min %[[E]], %n : index
// CHECK-NEXT:    mloop.parallel (%j) = (%[[JO]]) to (%[[U]]) step (%c1) {
// CHECK-NEXT:      mloop.load %x[%i, %j]
// CHECK-NEXT:      mloop.exp
// CHECK-NEXT:      mloop.store
// CHECK-NEXT:      mloop.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    mloop.yield
// CHECK-NEXT:  }

// FOR:         mloop.parallel (%[[IO:[a-z0-9_]+]], %j) = (%c0, %c0) to (%m, %n) step (%[[S:.*]], %c1) {
// FOR:           mloop.for %i = %[[IO]] to %{{.*}} step %c1 {
// FOR-NEXT:        mloop.load %x[%i, %j]

// ITER:        %[[S:.*]] = mloop.constant 8 : index
// ITER-NEXT:   %[[R:.*]] = mloop.for %[[IO:[a-z0-9_]+]] = %c0 to %m step %[[S]] iter_args(%[[A:.*]] = %zero) -> (f32) {
// ITER-NEXT:     %[[E:.*]] = mloop.add %[[IO]], %[[S]] : index
// ITER-NEXT:     %[[U:.*]] = mloop.min %[[E]], %m : index
// ITER-NEXT:     %[[R2:.*]] = mloop.for %[[I:[a-z0-9_]+]] = %[[IO]] to %[[U]] step %c1 iter_args(%[[A2:[a-z0-9_]+]] = %[[A]]) -> (f32) {
// ITER-NEXT:       %[[V:.*]] = mloop.load %y[%[[I]], %c0]
// ITER-NEXT:       %[[SUM:.*]] = mloop.add %[[A2]], %[[V]] : f32
// ITER-NEXT:       mloop.yield %[[SUM]] : f32
// ITER-NEXT:     }
// ITER-NEXT:     mloop.yield %[[R2]] : f32
// ITER-NEXT:   }
// ITER-NEXT:   mloop.store %[[R]], %s[]

// DIM: error: 'mloop.parallel' op cannot be split: dim=2 is out of range for a nest of 2 dimension(s)
// DIMFOR: error: 'mloop.for' op cannot be split: dim=1 is out of range for a nest of 1 dimension(s)
// ITERPAR: error: 'mloop.for' op cannot be split: an 'mloop.for' with iter_args needs an 'mloop.for' inner loop
// RANGE: error: 'func.func' op has no loop nest nest=5: it has 2 top-level 'mloop.parallel'/'mloop.for' nests
// SIZE0: error: pass 'loop-split': option 'size' must be at least 1
// NOSIZE: error: pass 'loop-split': option 'size' is required
// INNER: error: pass 'loop-split': option 'inner' expects parallel or for, got 'serial'
func.func @f(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?x?xf32>, !mloop.buffer<f32>) {
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
