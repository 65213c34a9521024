// loop-map leaves what it cannot map race free unmapped and says why, in a remark at the op.
// RUN: morf-opt %s --loop-map --split-input-file --verify-diagnostics

func.func @top_level_for(%x: !mloop.buffer<?xf32>, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  // expected-remark@+1 {{'mloop.for' op left unmapped: a top-level 'mloop.for' runs in order (no mapping for it yet)}}
  mloop.for %i = %c0 to %n step %c1 {
    %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
    mloop.store %v, %x[%c0] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return
}

// -----

func.func @returned_total(%x: !mloop.buffer<?xf32>, %n: index) -> f32 {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-remark@+1 {{'mloop.reduce' op left unmapped: its result is used after its epilogue (by a later nest or the return)}}
  %r = mloop.reduce sum (%i) = (%c0) to (%n) step (%c1) init(%z) : f32 {
    %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
    mloop.yield %v : f32
  }
  return %r : f32
}

// -----

func.func @product(%x: !mloop.buffer<?xf32>, %t: !mloop.buffer<f32>, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %one = mloop.constant 1.0 : f32
  // expected-remark@+1 {{'mloop.reduce' op left unmapped: a rank-0 reduction that is not a float sum, max or min}}
  %r = mloop.reduce prod (%i) = (%c0) to (%n) step (%c1) init(%one) : f32 {
    %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
    mloop.yield %v : f32
  }
  mloop.store %r, %t[] : !mloop.buffer<f32>
  return
}

// -----

// Every point writes one element: nothing may run in parallel.
func.func @one_element(%x: !mloop.buffer<?xf32>, %y: !mloop.buffer<?xf32>, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  // expected-remark@+1 {{'mloop.parallel' op left unmapped: no induction variable indexes every store and accumulate (nothing runs in parallel)}}
  mloop.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
    mloop.accumulate sum %v, %y[%c0] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return
}

// -----

// A shifted copy in place: a thread would read what another one writes.
func.func @in_place(%x: !mloop.buffer<?xf32>, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %m = mloop.sub %n, %c1 : index
  // expected-remark@+1 {{'mloop.parallel' op left unmapped: a buffer is both read and written in the nest (a thread could read another's write)}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %j = mloop.add %i, %c1 : index
    %v = mloop.load %x[%j] : !mloop.buffer<?xf32>
    mloop.store %v, %x[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return
}

// -----

// A row kernel whose row update does not index the row: two warps would update one element
// (and as a pointwise nest, the rows would have to run in order).
func.func @row_update(%x: !mloop.buffer<?x?xf32>, %w: !mloop.buffer<?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  // expected-remark@+1 {{'mloop.parallel' op left unmapped: no induction variable indexes every store and accumulate (nothing runs in parallel)}}
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %p = mloop.mul %v, %r : f32
      mloop.accumulate sum %p, %w[%j] : !mloop.buffer<?xf32>
      mloop.yield
    }
    mloop.yield
  }
  return
}
