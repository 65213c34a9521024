// loop-unroll: every innermost mloop.for with a constant positive step becomes a main loop of
// `factor` copies of its body (copy k at i + k*step, carrying the previous copy's values) and
// a remainder loop from lb + (trips div factor)*factor*step; a trip count known to be a
// multiple of the factor needs no remainder. Results are bit-identical.
// REQUIRES: numpy
//
// RUN: morf-opt %s --loop-unroll=factor=3 | FileCheck %s
// RUN: morf-run %s --random M=37,N=100 --output-dir %t/ref
// RUN: morf-opt %s --loop-unroll=factor=3 | morf-run - --random M=37,N=100 --output-dir %t/a
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/a --exact
// RUN: morf-opt %s --loop-unroll=factor=4 | morf-run - --random M=37,N=100 --output-dir %t/b
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/b --exact
// M = 0 and M = 2: the main loop runs zero times.
// RUN: morf-run %s --random M=0,N=3 --output-dir %t/ref0
// RUN: morf-opt %s --loop-unroll=factor=3 | morf-run - --random M=0,N=3 --output-dir %t/c
// RUN: python3 %S/Inputs/compare_results.py %t/ref0 %t/c --exact
// RUN: morf-run %s --random M=2,N=3 --output-dir %t/ref2
// RUN: morf-opt %s --loop-unroll=factor=3 | morf-run - --random M=2,N=3 --output-dir %t/d
// RUN: python3 %S/Inputs/compare_results.py %t/ref2 %t/d --exact
//
// RUN: not morf-opt %s --loop-unroll=factor=1 2>&1 | FileCheck --check-prefix=ONE %s
// RUN: not morf-opt %s --loop-unroll 2>&1 | FileCheck --check-prefix=NONE %s
// RUN: not morf-opt %s --loop-unroll=factor=100000 2>&1 | FileCheck --check-prefix=BIG %s

// CHECK-LABEL: func.func @f
// The row sum over a run-time M: main loop by 3, then the remainder from %[[MID]].
// CHECK:      %[[T:.*]] = mloop.max %m, %{{.*}} : index
// CHECK:      %[[MID:.*]] = mloop.mul %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[MAIN:.*]] = mloop.for %[[I:[a-z0-9_]+]] = %c0 to %[[MID]] step %[[C3:.*]] iter_args(%[[A:.*]] = %zero) -> (f32) {
// CHECK-NEXT:   %[[V0:.*]] = mloop.load %x[%[[I]], %c0]
// CHECK-NEXT:   %[[S0:.*]] = mloop.add %[[A]], %[[V0]] : f32
// CHECK-NEXT:   %[[K1:.*]] = mloop.constant 1 : index
// CHECK-NEXT:   %[[I1:.*]] = mloop.add %[[I]], %[[K1]] : index
// CHECK-NEXT:   %[[V1:.*]] = mloop.load %x[%[[I1]], %c0]
// CHECK-NEXT:   %[[S1:.*]] = mloop.add %[[S0]], %[[V1]] : f32
// CHECK-NEXT:   %[[K2:.*]] = mloop.constant 2 : index
// CHECK-NEXT:   %[[I2:.*]] = mloop.add %[[I]], %[[K2]] : index
// CHECK-NEXT:   %[[V2:.*]] = mloop.load %x[%[[I2]], %c0]
// CHECK-NEXT:   %[[S2:.*]] = mloop.add %[[S1]], %[[V2]] : f32
// CHECK-NEXT:   mloop.yield %[[S2]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.*]] = mloop.for %{{.*}} = %[[MID]] to %m step %c1 iter_args(%{{.*}} = %[[MAIN]]) -> (f32) {
// CHECK:      mloop.store %[[R]], %s[]
// Six iterations of step 2 (0 to 12): two main iterations of three copies, no remainder.
// CHECK:      %[[C12:.*]] = mloop.constant 12 : index
// CHECK-NEXT: %[[C6:.*]] = mloop.constant 6 : index
// CHECK-NEXT: mloop.for %{{.*}} = %c0 to %[[C12]] step %[[C6]] iter_args
// CHECK-NOT:  mloop.for
// CHECK:      mloop.store %{{.*}}, %t[]
// CHECK-NEXT: func.return

// ONE: error: pass 'loop-unroll': option 'factor' must be at least 2, got 1
// NONE: error: pass 'loop-unroll': option 'factor' is required
// BIG: error: pass 'loop-unroll': option 'factor' must be at most 1024, got 100000
func.func @f(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<f32>, !mloop.buffer<f32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c2 = mloop.constant 2 : index
  %c12 = mloop.constant 12 : index
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %zero = mloop.constant 0.0 : f32
  %s = mloop.alloc() : !mloop.buffer<f32>
  %r = mloop.for %i = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = mloop.load %x[%i, %c0] : !mloop.buffer<?x?xf32>
    %a = mloop.add %acc, %v : f32
    mloop.yield %a : f32
  }
  mloop.store %r, %s[] : !mloop.buffer<f32>
  %t = mloop.alloc() : !mloop.buffer<f32>
  %q = mloop.for %i = %c0 to %c12 step %c2 iter_args(%acc = %zero) -> (f32) {
    %e = mloop.convert %i : index to f32
    %a = mloop.add %acc, %e : f32
    mloop.yield %a : f32
  }
  mloop.store %q, %t[] : !mloop.buffer<f32>
  return %s, %t : !mloop.buffer<f32>, !mloop.buffer<f32>
}
