// loop-map: attaches GPU mapping attributes to the top-level nests by their shape (row
// kernels, split rows, pointwise nests, column updates, rank-0 reductions); the computation is
// unchanged.
// REQUIRES: numpy
//
// RUN: morf-opt %s --loop-map | FileCheck %s
// RUN: morf-opt %s --pass-pipeline='builtin.module(loop-map{rows=cta threads=64 grid=4})' | FileCheck --check-prefix=CTA %s
//
// The interpreter computes exactly the same before and after (tails: 37 and 100 are not
// multiples of the tiles).
// RUN: morf-run %s --entry row_kernel --random M=37,N=100 --output-dir %t/ref0
// RUN: morf-opt %s --loop-map | morf-run - --entry row_kernel --random M=37,N=100 --output-dir %t/map0
// RUN: python3 %S/Inputs/compare_results.py %t/ref0 %t/map0 --exact
// RUN: morf-run %s --entry long_rows --random M=37 --output-dir %t/ref1
// RUN: morf-opt %s --loop-map | morf-run - --entry long_rows --random M=37 --output-dir %t/map1
// RUN: python3 %S/Inputs/compare_results.py %t/ref1 %t/map1 --exact
// RUN: morf-run %s --entry pointwise --random M=37 --output-dir %t/ref2
// RUN: morf-opt %s --loop-map | morf-run - --entry pointwise --random M=37 --output-dir %t/map2
// RUN: python3 %S/Inputs/compare_results.py %t/ref2 %t/map2 --exact
// RUN: morf-run %s --entry split_rows --random M=37,N=100 --output-dir %t/ref4
// RUN: morf-opt %s --loop-map | morf-run - --entry split_rows --random M=37,N=100 --output-dir %t/map4
// RUN: python3 %S/Inputs/compare_results.py %t/ref4 %t/map4 --exact
// RUN: morf-run %s --entry columns_and_total --random M=37,N=100 --output-dir %t/ref3
// RUN: morf-opt %s --loop-map | morf-run - --entry columns_and_total --random M=37,N=100 --output-dir %t/map3
// RUN: python3 %S/Inputs/compare_results.py %t/ref3 %t/map3 --exact
//
// Bad options.
// RUN: not morf-opt %s --pass-pipeline='builtin.module(loop-map{threads=100})' 2>&1 | FileCheck --check-prefix=THREADS %s
// THREADS: option 'threads' must be a multiple of 32 from 32 to 1024, got 100
// RUN: not morf-opt %s --pass-pipeline='builtin.module(loop-map{rows=block})' 2>&1 | FileCheck --check-prefix=ROWS %s
// ROWS: option 'rows' expects auto, warp or cta, got 'block'

// A row kernel: rows in tiles of 8 (one per warp), the tiles over a persistent grid, the
// row's reduction and its inner parallel over the lanes.
// CHECK-LABEL: func.func @row_kernel
// CHECK:       mloop.parallel (%[[T:.*]]) = (%{{.*}}) to (%{{.*}}) step (%[[C8:.*]]) {
// CHECK:         %[[E:.*]] = mloop.add %[[T]], %[[C8]] : index
// CHECK:         %[[U:.*]] = mloop.min %[[E]], %{{.*}} : index
// CHECK:         mloop.parallel (%[[I:.*]]) = (%[[T]]) to (%[[U]]) step (%{{.*}}) {
// CHECK:           mloop.reduce sum
// CHECK:           } attributes {mapping = [{level = "lane"}]}
// CHECK:           mloop.store %{{.*}}, %{{.*}}[%[[I]]]
// CHECK:           mloop.parallel
// CHECK:           } attributes {mapping = [{level = "lane"}]}
// CHECK:         } attributes {mapping = [{level = "warp", size = 8}]}
// CHECK:       } attributes {mapping = [{level = "grid", persistent = true}]}
// With rows=cta: a CTA per row, the row over its threads, no split.
// CTA-LABEL: func.func @row_kernel
// CTA:       mloop.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CTA:         mloop.reduce sum
// CTA:         } attributes {mapping = [{level = "thread", size = 64}]}
// CTA:         mloop.parallel
// CTA:         } attributes {mapping = [{level = "thread", size = 64}]}
// CTA:       } attributes {mapping = [{level = "grid", size = 4}]}
func.func @row_kernel(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %y = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>
  %s = mloop.alloc(%m) : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %d = mloop.mul %v, %r : f32
      mloop.store %d, %y[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    }
    mloop.yield
  }
  return %y, %s : !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>
}

// Rows known to be longer than 1024: a CTA per row even by default.
// CHECK-LABEL: func.func @long_rows
// CHECK:         } attributes {mapping = [{level = "thread", size = 256}]}
// CHECK:       } attributes {mapping = [{level = "grid"}]}
func.func @long_rows(%x: !mloop.buffer<?x2048xf32> {morf.dims = ["M", "K"]}) -> !mloop.buffer<?xf32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c2048 = mloop.constant 2048 : index
  %ninf = mloop.constant 0xFF800000 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x2048xf32>
  %s = mloop.alloc(%m) : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce max (%j) = (%c0) to (%c2048) step (%c1) init(%ninf) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x2048xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return %s : !mloop.buffer<?xf32>
}

// Pointwise: 1-D in tiles of 256 (grid x thread), 2-D rows over the grid and columns over
// a CTA sized to them (40 columns: 64 threads).
// CHECK-LABEL: func.func @pointwise
// CHECK:         } attributes {mapping = [{level = "thread", size = 256}]}
// CHECK:       } attributes {mapping = [{level = "grid"}]}
// CHECK:       } attributes {mapping = [{level = "grid"}, {level = "thread", size = 64}]}
func.func @pointwise(%a: !mloop.buffer<?xf32> {morf.dims = ["M"]}, %b: !mloop.buffer<?x40xf32> {morf.dims = ["M", "K"]}) -> (!mloop.buffer<?xf32>, !mloop.buffer<?x40xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c40 = mloop.constant 40 : index
  %m = mloop.dim %a, 0 : !mloop.buffer<?xf32>
  %ya = mloop.alloc(%m) : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %v = mloop.load %a[%i] : !mloop.buffer<?xf32>
    %e = mloop.exp %v : f32
    mloop.store %e, %ya[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  %mb = mloop.dim %b, 0 : !mloop.buffer<?x40xf32>
  %yb = mloop.alloc(%mb) : !mloop.buffer<?x40xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%mb, %c40) step (%c1, %c1) {
    %v = mloop.load %b[%i, %j] : !mloop.buffer<?x40xf32>
    %t = mloop.tanh %v : f32
    mloop.store %t, %yb[%i, %j] : !mloop.buffer<?x40xf32>
    mloop.yield
  }
  return %ya, %yb : !mloop.buffer<?xf32>, !mloop.buffer<?x40xf32>
}

// Column updates: the rows in order (each column's updates in one thread, in row order),
// the columns in tiles over the grid and a tile's columns over the threads; a rank-0
// reduction and its store on one CTA.
// CHECK-LABEL: func.func @columns_and_total
// CHECK:         } attributes {mapping = [{level = "thread", size = 256}]}
// CHECK:       } attributes {mapping = [{level = "seq"}, {level = "grid"}]}
// CHECK:       mloop.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:         mloop.reduce sum
// CHECK:         } attributes {mapping = [{level = "thread", size = 256}, {level = "thread", size = 256}]}
// CHECK:         mloop.store
// CHECK:       } attributes {mapping = [{level = "grid"}]}
func.func @columns_and_total(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?xf32>, !mloop.buffer<f32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %w = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.fill %zero, %w : !mloop.buffer<?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.accumulate sum %v, %w[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  %t = mloop.alloc() : !mloop.buffer<f32>
  %r = mloop.reduce sum (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) init(%zero) : f32 {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield %v : f32
  }
  %h = mloop.mul %r, %r : f32
  mloop.store %h, %t[] : !mloop.buffer<f32>
  return %w, %t : !mloop.buffer<?xf32>, !mloop.buffer<f32>
}

// A row kernel that accumulates column partials per split of 4 rows (the fusion pass's
// row-fused form): a split per CTA (persistent), its rows in order, each row's reduction and
// columns over the CTA's threads, so each partial W[s, j] has one writer, in row order.
// CHECK-LABEL: func.func @split_rows
// CHECK:       mloop.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[C4:.*]]) {
// CHECK:         mloop.parallel (%{{.*}}) = {{.*}} {
// CHECK:           mloop.reduce sum
// CHECK:           } attributes {mapping = [{level = "thread", size = 256}]}
// CHECK:           mloop.parallel
// CHECK:             mloop.accumulate sum
// CHECK:           } attributes {mapping = [{level = "thread", size = 256}]}
// CHECK:         } attributes {mapping = [{level = "seq"}]}
// CHECK:       } attributes {mapping = [{level = "grid", persistent = true}]}
func.func @split_rows(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c3 = mloop.constant 3 : index
  %c4 = mloop.constant 4 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %m3 = mloop.add %m, %c3 : index
  %splits = mloop.div %m3, %c4 : index
  %w = mloop.alloc(%splits, %n) : !mloop.buffer<?x?xf32>
  mloop.fill %zero, %w : !mloop.buffer<?x?xf32>
  %s = mloop.alloc(%m) : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %q = mloop.mul %v, %v : f32
      mloop.yield %q : f32
    }
    mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
    %b = mloop.div %i, %c4 : index
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %p = mloop.mul %v, %r : f32
      mloop.accumulate sum %p, %w[%b, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    }
    mloop.yield
  }
  return %w, %s : !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>
}

// A row read through a flattened index (`x[i * N + j]` of a 1-D buffer) is a row too: its
// access map is contiguous in the reduce's iv, so the rows go to warps and the reduce to lanes.
// CHECK-LABEL: func.func @flat_rows
// CHECK:         mloop.reduce sum
// CHECK:         } attributes {mapping = [{level = "lane"}]}
// CHECK:       } attributes {mapping = [{level = "warp", size = 8}]}
func.func @flat_rows(%x: !mloop.buffer<?xf32>, %m: index, %n: index) -> !mloop.buffer<?xf32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %s = mloop.alloc(%m) : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %row = mloop.mul %i, %n : index
      %f = mloop.add %row, %j : index
      %v = mloop.load %x[%f] : !mloop.buffer<?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return %s : !mloop.buffer<?xf32>
}
