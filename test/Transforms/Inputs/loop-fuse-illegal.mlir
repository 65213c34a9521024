// Illegal fusions for test/Transforms/loop-fuse.mlir (--loop-fuse='first=0 second=1').

// The second reads %t at other indices than the first writes it.
func.func @shifted(%x: !mloop.buffer<?x?xf32>, %t: !mloop.buffer<?x?xf32>, %u: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.store %v, %t[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  // expected-error@+1 {{'mloop.parallel' op cannot be fused with nest 0: the second nest accesses buffer %t at indices other than the ones where the other nest accesses it, so an iteration of the second nest would depend on other iterations of the first}}
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %t[%i, %c0] : !mloop.buffer<?x?xf32>
    mloop.store %v, %u[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  return
}

// -----

// The second overwrites %x, which the first reads at other indices.
func.func @war(%x: !mloop.buffer<?x?xf32>, %t: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %c0] : !mloop.buffer<?x?xf32>
    mloop.store %v, %t[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  // expected-error@+1 {{the second nest accesses buffer %x at indices other than the ones where the other nest accesses it}}
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %z = mloop.constant 0.0 : f32
    mloop.store %z, %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  return
}

// -----

// Different domains.
func.func @domains(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    mloop.yield
  }
  // expected-error@+1 {{'mloop.parallel' op cannot be fused with nest 0: the iteration domains differ in dimension 0}}
  mloop.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
    mloop.yield
  }
  return
}

// -----

// Equal constant bounds are equal domains, but the first only partially accumulates %s
// (its index does not use %j), so the second cannot read it in the same iteration.
func.func @partial(%x: !mloop.buffer<4x8xf32>, %s: !mloop.buffer<4xf32>, %u: !mloop.buffer<4x8xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c4 = mloop.constant 4 : index
  %c8 = mloop.constant 8 : index
  %c4b = mloop.constant 4 : index
  mloop.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<4x8xf32>
    mloop.accumulate sum %v, %s[%i] : !mloop.buffer<4xf32>
    mloop.yield
  }
  // expected-error@+1 {{buffer %s is accessed at indices that do not depend on every induction variable, so several iterations touch the same element}}
  mloop.parallel (%i, %j) = (%c0, %c0) to (%c4b, %c8) step (%c1, %c1) {
    %v = mloop.load %s[%i] : !mloop.buffer<4xf32>
    mloop.store %v, %u[%i, %j] : !mloop.buffer<4x8xf32>
    mloop.yield
  }
  return
}

// -----

// An op between the nests that the second needs reads what the first writes.
func.func @between(%x: !mloop.buffer<?x?xf32>, %t: !mloop.buffer<?x?xf32>, %u: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.store %v, %t[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  %first = mloop.load %t[%c0, %c0] : !mloop.buffer<?x?xf32>
  // expected-error@+1 {{the 'mloop.load' op between the nests is needed by the second nest but depends on the first}}
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    mloop.store %first, %u[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  return
}

// -----

// Only mloop.parallel nests fuse.
func.func @for(%m: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  // expected-error@+1 {{'mloop.for' op cannot be fused: only 'mloop.parallel' nests can be fused}}
  mloop.for %i = %c0 to %m step %c1 {
    mloop.yield
  }
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.yield
  }
  return
}
