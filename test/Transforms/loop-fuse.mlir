// loop-fuse: fuses two top-level mloop.parallel nests with equal domains; the second's body
// runs after the first's in each iteration. Ops between the nests that the second needs
// move before the first. Illegal fusions are errors: Inputs/loop-fuse-illegal.mlir.
// REQUIRES: numpy
//
// RUN: morf-opt %s --loop-fuse='first=0 second=1' | FileCheck %s
// RUN: morf-opt %s --pass-pipeline='builtin.module(func.func(loop-fuse{first=0 second=1}),canonicalize)' \
// RUN:   | FileCheck %s
//
// Running it gives the same results as without the transform.
// RUN: morf-run %s --random M=37,N=100 --output-dir %t/ref
// RUN: morf-opt %s --loop-fuse='first=0 second=1' | morf-run - --random M=37,N=100 --output-dir %t/a
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/a --exact
// Fusing the result with the third nest (a column reduction over %t) is refused.
// RUN: morf-opt %s --loop-fuse='first=0 second=1' | not morf-opt --loop-fuse='first=0 second=1' 2>&1 \
// RUN:   | FileCheck --check-prefix=THIRD %s
//
// Errors, one per chunk.
// RUN: morf-opt %S/Inputs/loop-fuse-illegal.mlir --split-input-file --verify-diagnostics --loop-fuse='first=0 second=1'
// RUN: not morf-opt %s --loop-fuse='first=1 second=1' 2>&1 | FileCheck --check-prefix=OPT %s
// RUN: not morf-opt %s --loop-fuse='first=0 second=7' 2>&1 | FileCheck --check-prefix=RANGE %s

// CHECK-LABEL: func.func @f
// CHECK:       %u = mloop.alloc(%m, %n)
// CHECK-NEXT:  mloop.parallel (%[[I:[a-z0-9_]+]], %[[J:[a-z0-9_]+]]) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
// CHECK-NEXT:    %[[V:.*]] = mloop.load %x[%[[I]], %[[J]]]
// CHECK-NEXT:    %[[E:.*]] = mloop.exp %[[V]] : f32
// CHECK-NEXT:    mloop.store %[[E]], %t[%[[I]], %[[J]]]
// CHECK-NEXT:    %[[A:.*]] = mloop.load %t[%[[I]], %[[J]]]
// CHECK-NEXT:    %[[B:.*]] = mloop.load %x[%[[I]], %[[J]]]
// CHECK-NEXT:    %[[S:.*]] = mloop.add %[[A]], %[[B]] : f32
// CHECK-NEXT:    mloop.store %[[S]], %u[%[[I]], %[[J]]]
// CHECK-NEXT:    mloop.yield
// CHECK-NEXT:  }
// CHECK:       mloop.parallel (%{{.*}}) = (%c0) to (%n)
// CHECK-NOT:   mloop.parallel
// CHECK:       return %u, %cs

// THIRD: error: 'mloop.parallel' op cannot be fused with nest 0: it has 1 dimensions and nest 0 has 2
// OPT: error: pass 'loop-fuse': option 'first' (1) must be less than option 'second' (1)
// RANGE: error: 'func.func' op has no loop nest second=7: it has 3 top-level 'mloop.parallel'/'mloop.for' nests
func.func @f(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %t = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    %e = mloop.exp %v : f32
    mloop.store %e, %t[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  %u = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %a = mloop.load %t[%i, %j] : !mloop.buffer<?x?xf32>
    %b = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    %s = mloop.add %a, %b : f32
    mloop.store %s, %u[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  %zero = mloop.constant 0.0 : f32
  %cs = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
    %r = mloop.reduce sum (%i) = (%c0) to (%m) step (%c1) init(%zero) : f32 {
      %a = mloop.load %t[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %a : f32
    }
    mloop.store %r, %cs[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  mloop.dealloc %t : !mloop.buffer<?x?xf32>
  return %u, %cs : !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>
}
