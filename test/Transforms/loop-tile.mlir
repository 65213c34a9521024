// loop-tile: tiles leading dims of a parallel nest: the nest steps over the tiles, one inner
// parallel runs a tile's points with exact bounds for the tails. Results are identical.
// REQUIRES: numpy
//
// RUN: morf-opt %s --loop-tile='sizes=8,32' | FileCheck %s
// RUN: morf-opt %s --loop-tile='sizes=0,16' | FileCheck --check-prefix=INNER %s
//
// 37 and 100 are not multiples of the tile sizes: the last tiles are partial.
// RUN: morf-run %s --random M=37,N=100 --output-dir %t/ref
// RUN: morf-opt %s --loop-tile='sizes=8,32' | morf-run - --random M=37,N=100 --output-dir %t/a
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/a --exact
// RUN: morf-opt %s --loop-tile='sizes=0,16' | morf-run - --random M=37,N=100 --output-dir %t/b
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/b --exact
//
// Errors.
// RUN: not morf-opt %s --loop-tile='sizes=2,2,2' 2>&1 | FileCheck --check-prefix=RANK %s
// RANK: error: 'mloop.parallel' op cannot be tiled: 3 tile sizes for a nest of 2 dimension(s)
// RUN: not morf-opt %s --loop-tile='sizes=0' 2>&1 | FileCheck --check-prefix=ZERO %s
// ZERO: option 'sizes' needs at least one non-zero tile size
// RUN: not morf-opt %s --loop-tile='nest=3 sizes=2' 2>&1 | FileCheck --check-prefix=NEST %s
// NEST: error: 'func.func' op has no loop nest nest=3

// CHECK-LABEL: func.func @f
// CHECK:       mloop.parallel (%[[IO:.*]], %[[JO:.*]]) = (%{{.*}}, %{{.*}}) to (%[[M:.*]], %[[N:.*]]) step (%[[C8:.*]], %[[C32:.*]]) {
// CHECK:         %[[EI:.*]] = mloop.add %[[IO]], %[[C8]] : index
// CHECK:         %[[UI:.*]] = mloop.min %[[EI]], %[[M]] : index
// CHECK:         %[[EJ:.*]] = mloop.add %[[JO]], %[[C32]] : index
// CHECK:         %[[UJ:.*]] = mloop.min %[[EJ]], %[[N]] : index
// CHECK:         mloop.parallel (%[[I:.*]], %[[J:.*]]) = (%[[IO]], %[[JO]]) to (%[[UI]], %[[UJ]]) step
// CHECK:           mloop.load %x[%[[I]], %[[J]]]
// INNER-LABEL: func.func @f
// INNER:       mloop.parallel (%{{.*}}, %[[JO:.*]]) = {{.*}} {
// INNER:         mloop.parallel (%[[J:.*]]) = (%[[JO]]) to
func.func @f(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?x?xf32> {
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
  return %y : !mloop.buffer<?x?xf32>
}
