// invariant-divisor-to-reciprocal: an f32/f64 division by a value defined outside the innermost
// mloop loop around it becomes a multiplication by a reciprocal computed once before that loop
// (one per divisor and loop). Divisions whose divisor varies in the loop, whose dividend is
// invariant too, on f16/bf16 or on index stay. Not bit-identical (two roundings): within about
// 1.5 ulp of the division.
// REQUIRES: numpy
//
// RUN: morf-opt %s --invariant-divisor-to-reciprocal | FileCheck %s
// RUN: morf-run %s --random M=37,N=100 --output-dir %t/ref
// RUN: morf-opt %s --invariant-divisor-to-reciprocal | morf-run - --random M=37,N=100 --output-dir %t/a
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/a --rtol 1e-6
// M = 0: the reciprocals run although no loop does (a division by zero is IEEE: inf or NaN).
// RUN: morf-opt %s --invariant-divisor-to-reciprocal | morf-run - --random M=0,N=5 --output-dir %t/b
// In the GPU pipeline (softmax divides each element by its row's sum): the kernels agree with
// the interpreter on the GPU simulator.
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/softmax_fwd_colsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)' M=13,N=100 1e-2 %t/sim
// RUN: morf-opt %S/../../examples/softmax_fwd_colsum.mlir --pipeline=gpu --emit=ptx | FileCheck %s --check-prefix=PTX
// PTX-LABEL: .entry softmax_fwd_colsum_k0
// PTX-NOT: div.rn.f32
// PTX: ld.param

// CHECK-LABEL: func.func @f
// CHECK:       mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
// CHECK-NEXT:    %[[ROW:.*]] = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
// The row's sum over the run-time %k: both invariant in the reduce, so LICM's work; a
// division by the element inside the loop stays too.
// CHECK:           %[[RK:.*]] = mloop.div %half, %k : f32
// CHECK:           %{{.*}} = mloop.div %{{.*}}, %{{.*}} : f32
// CHECK:         }
// CHECK-NEXT:    mloop.store %[[ROW]], %q[%i]
// Two divisions by the row sum in one loop share a reciprocal, placed before the loop.
// CHECK-NEXT:    %[[ONE:.*]] = mloop.constant 1.0 : f32
// CHECK-NEXT:    %[[R:.*]] = mloop.div %[[ONE]], %[[ROW]] : f32
// CHECK-NEXT:    mloop.parallel (%[[J:.*]]) = (%c0) to (%n) step (%c1) {
// CHECK-NEXT:      %[[V:.*]] = mloop.load %x[%i, %[[J]]]
// CHECK-NEXT:      %[[Q:.*]] = mloop.mul %[[V]], %[[R]] : f32
// CHECK-NEXT:      %[[Q2:.*]] = mloop.mul %[[Q]], %[[R]] : f32
// f16 and index divisions stay.
// CHECK-NEXT:      %[[H:.*]] = mloop.convert %[[Q2]] : f32 to f16
// CHECK-NEXT:      %{{.*}} = mloop.div %[[H]], %hk : f16
// CHECK:           %{{.*}} = mloop.div %[[J]], %c4 : index
// CHECK:         }
// f64: the same, with an f64 one.
// CHECK:         %[[ONE64:.*]] = mloop.constant 1.0 : f64
// CHECK-NEXT:    %[[R64:.*]] = mloop.div %[[ONE64]], %k64 : f64
// CHECK-NEXT:    mloop.parallel
// CHECK:           mloop.mul %{{.*}}, %[[R64]] : f64
func.func @f(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?x?xf32>, !mloop.buffer<?x?xf16>, !mloop.buffer<?xf32>, !mloop.buffer<?x?xf64>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c4 = mloop.constant 4 : index
  %zero = mloop.constant 0.0 : f32
  %half = mloop.constant 0.5 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %k = mloop.convert %n : index to f32
  %hk = mloop.convert %k : f32 to f16
  %k64 = mloop.convert %k : f32 to f64
  %y = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>
  %h = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf16>
  %q = mloop.alloc(%m) : !mloop.buffer<?xf32>
  %d = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf64>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %row = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %rk = mloop.div %half, %k : f32
      %a = mloop.abs %v : f32
      %one = mloop.constant 1.0 : f32
      %a1 = mloop.add %a, %one : f32
      %w = mloop.div %rk, %a1 : f32
      mloop.yield %w : f32
    }
    mloop.store %row, %q[%i] : !mloop.buffer<?xf32>
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %s = mloop.div %v, %row : f32
      %s2 = mloop.div %s, %row : f32
      %hs = mloop.convert %s2 : f32 to f16
      %hq = mloop.div %hs, %hk : f16
      mloop.store %hq, %h[%i, %j] : !mloop.buffer<?x?xf16>
      %jb = mloop.div %j, %c4 : index
      %jf = mloop.convert %jb : index to f32
      %o = mloop.add %s2, %jf : f32
      mloop.store %o, %y[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    }
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %v64 = mloop.convert %v : f32 to f64
      %e = mloop.div %v64, %k64 : f64
      mloop.store %e, %d[%i, %j] : !mloop.buffer<?x?xf64>
      mloop.yield
    }
    mloop.yield
  }
  return %y, %h, %q, %d : !mloop.buffer<?x?xf32>, !mloop.buffer<?x?xf16>, !mloop.buffer<?xf32>, !mloop.buffer<?x?xf64>
}
