// loop-invariant-code-motion: a pure op whose operands are all defined outside an mloop loop
// moves before it, innermost loops first, so an invariant climbs as far as it is invariant.
// Index div/rem move only by a nonzero constant (a loop that runs zero times must not fail);
// loads, stores and ops using the loop's ivs or iter_args stay. Results are bit-identical.
// REQUIRES: numpy
//
// RUN: morf-opt %s --loop-invariant-code-motion | FileCheck %s
// RUN: morf-run %s --random M=37,N=100 --output-dir %t/ref
// RUN: morf-opt %s --loop-invariant-code-motion | morf-run - --random M=37,N=100 --output-dir %t/a
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/a --exact
// M = 0: the hoisted ops run although no loop does.
// RUN: morf-run %s --random M=0,N=5 --output-dir %t/ref0
// RUN: morf-opt %s --loop-invariant-code-motion | morf-run - --random M=0,N=5 --output-dir %t/b
// RUN: python3 %S/Inputs/compare_results.py %t/ref0 %t/b --exact
// Before the GPU lowering (a fused row kernel's per-row values leave its column loops): the
// kernels agree with the interpreter on the GPU simulator.
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/reduce3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,loop-invariant-code-motion,lower-loop-to-gpu)' B=3,M=13,N=100 1e-5 %t/sim

// CHECK-LABEL: func.func @f
// The scale leaves both loops (the reduce, then the parallel), the row length's conversion
// the parallel; ops on the row (%i) stay in it; the division by the run-time %m stays
// although its operands are invariant (with M = 0 it would divide by zero), and so do loads.
// CHECK:       %[[SC:.*]] = mloop.mul %two, %half : f32
// CHECK-NEXT:  %[[K:.*]] = mloop.convert %n : index to f32
// CHECK-NEXT:  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
// CHECK-NEXT:    %[[ROW:.*]] = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
// CHECK-NEXT:      %[[V:.*]] = mloop.load %x[%i, %j]
// CHECK-NEXT:      %[[W:.*]] = mloop.mul %[[V]], %[[SC]] : f32
// CHECK-NEXT:      mloop.yield %[[W]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[MEAN:.*]] = mloop.div %[[ROW]], %[[K]] : f32
// CHECK-NEXT:    %[[B:.*]] = mloop.div %i, %c4 : index
// CHECK-NEXT:    %[[BR:.*]] = mloop.rem %i, %c4 : index
// CHECK-NEXT:    %[[BD:.*]] = mloop.div %n, %m : index
// CHECK-NEXT:    %[[BF:.*]] = mloop.convert %[[B]] : index to f32
// CHECK-NEXT:    %[[OFF:.*]] = mloop.add %[[MEAN]], %[[BF]] : f32
// CHECK-NEXT:    mloop.parallel (%[[J:.*]]) = (%c0) to (%n) step (%c1) {
// CHECK-NEXT:      %[[V2:.*]] = mloop.load %x[%i, %[[J]]]
// CHECK-NEXT:      %[[D:.*]] = mloop.sub %[[V2]], %[[OFF]] : f32
// CHECK-NEXT:      mloop.store %[[D]], %y[%i, %[[J]]]
// CHECK-NEXT:      mloop.yield
// CHECK-NEXT:    }
// An op on the iter_arg stays in the for; the invariant product leaves it.
// CHECK:       %[[P:.*]] = mloop.mul %half, %half : f32
// CHECK-NEXT:  %{{.*}} = mloop.for %{{.*}} = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
// CHECK-NEXT:    %{{.*}} = mloop.add %acc, %[[P]] : f32
func.func @f(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>, !mloop.buffer<f32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c4 = mloop.constant 4 : index
  %zero = mloop.constant 0.0 : f32
  %half = mloop.constant 0.5 : f32
  %two = mloop.constant 2.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %y = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>
  %q = mloop.alloc(%m) : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %row = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %sc = mloop.mul %two, %half : f32
      %w = mloop.mul %v, %sc : f32
      mloop.yield %w : f32
    }
    %k = mloop.convert %n : index to f32
    %mean = mloop.div %row, %k : f32
    %b = mloop.div %i, %c4 : index
    %br = mloop.rem %i, %c4 : index
    %bd = mloop.div %n, %m : index
    %bf = mloop.convert %b : index to f32
    %off = mloop.add %mean, %bf : f32
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v2 = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %d = mloop.sub %v2, %off : f32
      mloop.store %d, %y[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    }
    %brf = mloop.convert %br : index to f32
    %bdf = mloop.convert %bd : index to f32
    %t = mloop.add %brf, %bdf : f32
    mloop.store %t, %q[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  %s = mloop.alloc() : !mloop.buffer<f32>
  %r = mloop.for %i = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
    %p = mloop.mul %half, %half : f32
    %a = mloop.add %acc, %p : f32
    mloop.yield %a : f32
  }
  mloop.store %r, %s[] : !mloop.buffer<f32>
  return %y, %q, %s : !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>, !mloop.buffer<f32>
}
