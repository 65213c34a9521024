// loop-coalesce: collapses the box of every mloop.parallel and mloop.reduce (each dim from 0,
// step 1) into one dimension over the product of the extents; the body recovers the old ivs
// row-major (`rem`, then `div`, the last dim fastest). The iteration order is unchanged, so the
// results are identical (a reduce combines its values in the same order). `ops=reductions`
// leaves pointwise boxes as they are; a box with another lower bound or step is left too.
// REQUIRES: numpy
//
// RUN: morf-opt %s --loop-coalesce | FileCheck %s
// RUN: morf-opt %s --pass-pipeline='builtin.module(func.func(loop-coalesce{ops=all}))' | FileCheck %s
// RUN: morf-opt %s --loop-coalesce='ops=reductions' | FileCheck %s --check-prefix=RED
//
// Running it gives the same results as without the transform, bit for bit.
// RUN: morf-run %s --random B=3,M=5,N=7 --output-dir %t/ref
// RUN: morf-opt %s --loop-coalesce | morf-run - --random B=3,M=5,N=7 --output-dir %t/out
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/out --exact
// RUN: morf-opt %s --loop-coalesce='ops=reductions' | morf-run - --random B=3,M=5,N=7 --output-dir %t/red
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/red --exact
//
// A bad option value is an error.
// RUN: not morf-opt %s --loop-coalesce='ops=some' 2>&1 | FileCheck %s --check-prefix=OPT

// The column sums over (B, M): one reduce over B*M, the product hoisted out of the parallel.
// CHECK-LABEL: func.func @stats3d
// CHECK:       %[[BM:.*]] = mloop.mul %b, %m : index
// CHECK-NEXT:  mloop.parallel (%[[J:[a-z0-9_]+]]) = (%c0) to (%n) step (%c1) {
// CHECK-NEXT:    %[[S:.*]] = mloop.reduce sum (%[[R:[a-z0-9_]+]]) = (%c0) to (%[[BM]]) step (%c1) init(%zero) : f32 {
// CHECK-NEXT:      %[[I1:.*]] = mloop.rem %[[R]], %m : index
// CHECK-NEXT:      %[[I0:.*]] = mloop.div %[[R]], %m : index
// CHECK-NEXT:      mloop.load %x[%[[I0]], %[[I1]], %[[J]]]
// The row means over N, rows (B, M) as one.
// CHECK:       %[[BM2:.*]] = mloop.mul %b, %m : index
// CHECK-NEXT:  mloop.parallel (%[[Q:[a-z0-9_]+]]) = (%c0) to (%[[BM2]]) step (%c1) {
// CHECK-NEXT:    %[[Q1:.*]] = mloop.rem %[[Q]], %m : index
// CHECK-NEXT:    %[[Q0:.*]] = mloop.div %[[Q]], %m : index
// CHECK-NEXT:    mloop.reduce max
// CHECK:         mloop.store %{{.*}}, %rows[%[[Q0]], %[[Q1]]]
// A pointwise box over three dims: two rems and two divs.
// CHECK:       mloop.parallel (%[[P:[a-z0-9_]+]]) = (%c0) to (%{{.*}}) step (%c1) {
// CHECK-NEXT:    %[[P2:.*]] = mloop.rem %[[P]], %n : index
// CHECK-NEXT:    %[[PQ:.*]] = mloop.div %[[P]], %n : index
// CHECK-NEXT:    %[[P1:.*]] = mloop.rem %[[PQ]], %m : index
// CHECK-NEXT:    %[[P0:.*]] = mloop.div %[[PQ]], %m : index
// CHECK-NEXT:    mloop.load %x[%[[P0]], %[[P1]], %[[P2]]]
// A box from 1 stays two-dimensional.
// CHECK:       mloop.parallel (%{{.*}}, %{{.*}}) = (%c1, %c0) to (%b, %m) step (%c1, %c1)

// RED-LABEL: func.func @stats3d
// RED:       mloop.reduce sum (%{{[a-z0-9_]+}}) = (%c0) to
// RED:       mloop.parallel (%{{[a-z0-9_]+}}) = (%c0) to
// RED:       mloop.parallel (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) = (%c0, %c0, %c0) to (%b, %m, %n)

// OPT: error: pass 'loop-coalesce': option 'ops' must be 'all' or 'reductions', got 'some'
func.func @stats3d(%x: !mloop.buffer<?x?x?xf32> {morf.dims = ["B", "M", "N"]})
    -> (!mloop.buffer<?xf32>, !mloop.buffer<?x?xf32>, !mloop.buffer<?x?x?xf32>, !mloop.buffer<?x?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %zero = mloop.constant 0.0 : f32
  %ninf = mloop.constant -1.0e30 : f32
  %b = mloop.dim %x, 0 : !mloop.buffer<?x?x?xf32>
  %m = mloop.dim %x, 1 : !mloop.buffer<?x?x?xf32>
  %n = mloop.dim %x, 2 : !mloop.buffer<?x?x?xf32>
  %cols = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
    %s = mloop.reduce sum (%i0, %i1) = (%c0, %c0) to (%b, %m) step (%c1, %c1) init(%zero) : f32 {
      %v = mloop.load %x[%i0, %i1, %j] : !mloop.buffer<?x?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %s, %cols[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  %rows = mloop.alloc(%b, %m) : !mloop.buffer<?x?xf32>
  mloop.parallel (%p, %q) = (%c0, %c0) to (%b, %m) step (%c1, %c1) {
    %mx = mloop.reduce max (%k) = (%c0) to (%n) step (%c1) init(%ninf) : f32 {
      %v = mloop.load %x[%p, %q, %k] : !mloop.buffer<?x?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %mx, %rows[%p, %q] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  %y = mloop.alloc(%b, %m, %n) : !mloop.buffer<?x?x?xf32>
  mloop.parallel (%u, %v, %w) = (%c0, %c0, %c0) to (%b, %m, %n) step (%c1, %c1, %c1) {
    %e = mloop.load %x[%u, %v, %w] : !mloop.buffer<?x?x?xf32>
    %t = mloop.exp %e : f32
    mloop.store %t, %y[%u, %v, %w] : !mloop.buffer<?x?x?xf32>
    mloop.yield
  }
  %z = mloop.alloc(%b, %m) : !mloop.buffer<?x?xf32>
  mloop.fill %zero, %z : !mloop.buffer<?x?xf32>
  mloop.parallel (%g, %h) = (%c1, %c0) to (%b, %m) step (%c1, %c1) {
    %e = mloop.load %x[%g, %h, %c0] : !mloop.buffer<?x?x?xf32>
    mloop.store %e, %z[%g, %h] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  return %cols, %rows, %y, %z : !mloop.buffer<?xf32>, !mloop.buffer<?x?xf32>, !mloop.buffer<?x?x?xf32>, !mloop.buffer<?x?xf32>
}
