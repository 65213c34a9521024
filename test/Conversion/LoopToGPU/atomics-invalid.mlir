// Atomics that cannot be lowered, and bad option values, end in diagnostics (exit code 1).
// RUN: morf-opt %s --lower-loop-to-gpu --verify-diagnostics
// RUN: not morf-opt %s --pass-pipeline='builtin.module(loop-map{atomics=maybe})' 2>&1 | FileCheck %s --check-prefix=MAP
// RUN: not morf-opt %s --pass-pipeline='builtin.module(lower-loop-to-gpu{atomics=2})' 2>&1 | FileCheck %s --check-prefix=L2G
// MAP: pass 'loop-map': option 'atomics' expects true or false, got 'maybe'
// L2G: pass 'lower-loop-to-gpu': option 'atomics' expects true or false, got '2'

// A hand-written {atomic} accumulate of bf16 (no 16-bit float atomics): an error at the op.
func.func @f(%x: !mloop.buffer<?x?xbf16> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?xbf16> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : bf16
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xbf16>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xbf16>
  %s = mloop.alloc(%n) : !mloop.buffer<?xbf16>
  mloop.fill %z, %s : !mloop.buffer<?xbf16>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xbf16>
    // expected-error@+1 {{'mloop.accumulate' op an atomic accumulate of kind 'sum' into 'bf16' has no GPU lowering (sum, max or min of f32 or f64)}}
    mloop.accumulate sum %v, %s[%j] {atomic} : !mloop.buffer<?xbf16>
    mloop.yield
  } attributes {mapping = [{level = "grid"}, {level = "thread", size = 256}]}
  return %s : !mloop.buffer<?xbf16>
}
