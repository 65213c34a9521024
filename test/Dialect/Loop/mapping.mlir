// RUN: morf-opt %s | morf-opt | FileCheck %s
// RUN: morf-opt %s --print-op-generic | morf-opt | FileCheck %s

// The GPU mapping attributes of mloop.parallel and mloop.reduce (docs/dialects/loop.md,
// "Mapping attributes") round-trip and verify.

// CHECK-LABEL: func.func @row_kernel
func.func @row_kernel(%x: !mloop.buffer<?x?xf32>, %y: !mloop.buffer<?x?xf32>, %s: !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c8 = mloop.constant 8 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %m7 = mloop.add %m, %c8 : index
  %m8 = mloop.sub %m7, %c1 : index
  %nb = mloop.div %m8, %c8 : index
  // Rows in tiles of 8 (exact tail bound), a tile per CTA (persistent), a row per warp, the
  // row's columns over the lanes.
  mloop.parallel (%b) = (%c0) to (%nb) step (%c1) {
    %base = mloop.mul %b, %c8 : index
    %left = mloop.sub %m, %base : index
    %ub = mloop.min %left, %c8 : index
    mloop.parallel (%w) = (%c0) to (%ub) step (%c1) {
      %i = mloop.add %base, %w : index
      %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
        %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
        mloop.yield %v : f32
      // CHECK: {mapping = [{level = "lane"}]}
      } attributes {mapping = [{level = "lane"}]}
      mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
      mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
        %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
        %d = mloop.div %v, %r : f32
        mloop.store %d, %y[%i, %j] : !mloop.buffer<?x?xf32>
        mloop.yield
      // CHECK: {mapping = [{level = "lane", size = 32}]}
      } attributes {mapping = [{level = "lane", size = 32}]}
      mloop.yield
    // CHECK: {mapping = [{level = "warp", size = 8}], rows_in_flight = 2, vector = 4}
    } attributes {mapping = [{level = "warp", size = 8}], rows_in_flight = 2 : i64, vector = 4 : i64}
    mloop.yield
  // CHECK: {mapping = [{level = "grid", persistent = true}]}
  } attributes {mapping = [{level = "grid", persistent = true}]}
  return
}

// CHECK-LABEL: func.func @pointwise
func.func @pointwise(%x: !mloop.buffer<?x?x?xf32>, %y: !mloop.buffer<?x?x?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %a = mloop.dim %x, 0 : !mloop.buffer<?x?x?xf32>
  %b = mloop.dim %x, 1 : !mloop.buffer<?x?x?xf32>
  %c = mloop.dim %x, 2 : !mloop.buffer<?x?x?xf32>
  // Adjacent grid ivs are flattened; a CTA per (i, j), its threads over k.
  mloop.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%a, %b, %c) step (%c1, %c1, %c1) {
    %v = mloop.load %x[%i, %j, %k] : !mloop.buffer<?x?x?xf32>
    mloop.store %v, %y[%i, %j, %k] : !mloop.buffer<?x?x?xf32>
    mloop.yield
  // CHECK: {mapping = [{level = "grid"}, {level = "grid"}, {level = "thread", size = 256}]}
  } attributes {mapping = [{level = "grid"}, {level = "grid"}, {level = "thread", size = 256}]}
  return
}

// CHECK-LABEL: func.func @cta_per_row
func.func @cta_per_row(%x: !mloop.buffer<?x?xf32>, %s: !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    // A CTA reduction, then sequential code inside a seq loop.
    %r = mloop.reduce max (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    // CHECK: {mapping = [{level = "thread", size = 512}]}
    } attributes {mapping = [{level = "thread", size = 512}]}
    mloop.for %t = %c0 to %c1 step %c1 {
      mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
      mloop.yield
    }
    mloop.yield
  // CHECK: {mapping = [{level = "grid", size = 64}]}
  } attributes {mapping = [{level = "grid", size = 64}]}
  return
}

// CHECK-LABEL: func.func @seq_inside
func.func @seq_inside(%x: !mloop.buffer<?x?xf32>, %y: !mloop.buffer<?x?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.store %v, %y[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  // CHECK: {mapping = [{level = "thread"}, {level = "seq"}]}
  } attributes {mapping = [{level = "thread"}, {level = "seq"}]}
  return
}

// CHECK-LABEL: func.func @seq_then_grid
func.func @seq_then_grid(%x: !mloop.buffer<?x?xf32>, %w: !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  // Rows in order, columns over the grid: each column's updates stay in one CTA, in order.
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.accumulate sum %v, %w[%j] : !mloop.buffer<?xf32>
    mloop.yield
  // CHECK: {mapping = [{level = "seq"}, {level = "grid"}]}
  } attributes {mapping = [{level = "seq"}, {level = "grid"}]}
  return
}
