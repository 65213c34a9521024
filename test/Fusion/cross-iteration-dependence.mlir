// A consumer that reads a reduction's result at an index other than the loop a fusion would
// share depends on other fused iterations: it must stay a kernel of its own after the
// reduction. In square shapes, loops of one size share an axis, so only the loop position
// tells `t[i]` from `t[j]` (issue 8, GPU differential run of 2026-11-30, seeds 554 and 2257).
// RUN: morf-opt %s --lower-tensor-to-loop --fuse-mixed-reductions='report' \
// RUN:   --split-input-file 2>%t.report | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// RUN: morf-opt %s --pipeline=gpu --split-input-file | FileCheck %s --check-prefix=GPU

// Seed 554: a column sum broadcast back over the rows. Row-fusing it let row j read s[k] for
// every k while other rows were still computing them (NaN / garbage on the device).
// CHECK-LABEL: func.func @colsum_broadcast
// CHECK:         {morf.kernel = {kind = "reduction"{{(, priced = "[^"]*")?}}}}
// CHECK:         mloop.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK:           mloop.load %{{.*}}[%[[J]]]
// CHECK:         {morf.kernel = {kind = "pointwise"{{(, priced = "[^"]*")?}}}}
// REPORT: @colsum_broadcast: chosen plan: nest0 ; nest1
// GPU-LABEL: func.func @colsum_broadcast
// GPU-COUNT-2: mgpu.launch
func.func @colsum_broadcast(%a: tensor<300x300xf32>) -> (tensor<300x300xf32>) {
  %s = mtensor.reduce sum %a dims [0] : tensor<300x300xf32> -> tensor<300xf32>
  %t = mtensor.add %s, %s : tensor<300xf32>
  %b = mtensor.broadcast %t dims [1] : tensor<300xf32> -> tensor<300x300xf32>
  %n = mtensor.neg %b : tensor<300x300xf32>
  func.return %n : tensor<300x300xf32>
}

// -----

// Seed 2257: a row max of a square product was taken for a column reduction (its axes alone
// match [reduced, kept]); its partial, fused with the product, was then rejected by loop-fuse.
// It is a row reduction (no partial); since `producer-into-row` it recomputes the returned
// product in one row kernel that also stores it, and the gpu pipeline compiles that.
// CHECK-LABEL: func.func @rowmax_of_square
// CHECK-NOT:     mloop.accumulate
// CHECK:         {morf.kernel = {kind = "row-fused", {{(priced = "[^"]*", )?}}style = "persistent"}}
// REPORT: @rowmax_of_square: chosen plan: rowfused.persistent[nest0 + nest1]
// REPORT: row (inner) reduction: max
// GPU-LABEL: func.func @rowmax_of_square
// GPU: mgpu.launch @rowmax_of_square_k0
// GPU-NOT: mgpu.launch @rowmax_of_square_k1
// GPU: morf.schedule = "RowFused
func.func @rowmax_of_square(%a0: tensor<64x64xf64> {morf.dims = ["d0", "d1"]}) -> (tensor<64xf64>, tensor<64x64xf64>) {
  %v1 = mtensor.mul %a0, %a0 : tensor<64x64xf64>
  %v14 = mtensor.reduce max %v1 dims [1] : tensor<64x64xf64> -> tensor<64xf64>
  func.return %v14, %v1 : tensor<64xf64>, tensor<64x64xf64>
}

// -----

// A row sum read back at the column index, y[i, j] = a[i, j] - r[j]: not row-fused.
// CHECK-LABEL: func.func @rowsum_at_column
// CHECK:         {morf.kernel = {kind = "reduction"{{(, priced = "[^"]*")?}}}}
// CHECK:         {morf.kernel = {kind = "pointwise"{{(, priced = "[^"]*")?}}}}
// REPORT: @rowsum_at_column: chosen plan: nest0 ; nest1
func.func @rowsum_at_column(%a: tensor<16x16xf32>) -> (tensor<16x16xf32>) {
  %r = mtensor.reduce sum %a dims [1] : tensor<16x16xf32> -> tensor<16xf32>
  %b = mtensor.broadcast %r dims [1] : tensor<16xf32> -> tensor<16x16xf32>
  %n = mtensor.sub %a, %b : tensor<16x16xf32>
  func.return %n : tensor<16x16xf32>
}

// -----

// Its legal twin, y[i, j] = a[i, j] - r[i], reads the row's own sum: still one row kernel.
// CHECK-LABEL: func.func @rowsum_at_row
// CHECK:         {morf.kernel = {kind = "row-fused", {{(priced = "[^"]*", )?}}style = "persistent"}}
// REPORT: @rowsum_at_row: chosen plan: rowfused.persistent[nest0 + nest1]
func.func @rowsum_at_row(%a: tensor<16x16xf32>) -> (tensor<16x16xf32>) {
  %r = mtensor.reduce sum %a dims [1] : tensor<16x16xf32> -> tensor<16xf32>
  %b = mtensor.broadcast %r dims [0] : tensor<16xf32> -> tensor<16x16xf32>
  %n = mtensor.sub %a, %b : tensor<16x16xf32>
  func.return %n : tensor<16x16xf32>
}

// -----

// 3-D: r[i, j] (a sum over k) read back as r[j, k]: not row-fused.
// CHECK-LABEL: func.func @rowsum3d_shifted
// CHECK:         {morf.kernel = {kind = "reduction"{{(, priced = "[^"]*")?}}}}
// CHECK:         {morf.kernel = {kind = "pointwise"{{(, priced = "[^"]*")?}}}}
// REPORT: @rowsum3d_shifted: chosen plan: nest0 ; nest1
func.func @rowsum3d_shifted(%a: tensor<8x8x8xf32>) -> (tensor<8x8x8xf32>) {
  %r = mtensor.reduce sum %a dims [2] : tensor<8x8x8xf32> -> tensor<8x8xf32>
  %b = mtensor.broadcast %r dims [1, 2] : tensor<8x8xf32> -> tensor<8x8x8xf32>
  %n = mtensor.sub %a, %b : tensor<8x8x8xf32>
  func.return %n : tensor<8x8x8xf32>
}

// -----

// A row and a column reduction of one square input (both dims "M") have the same axes; by
// position they are a row reduction and a column reduction, not siblings: a row kernel with
// the column partial, then the final.
// CHECK-LABEL: func.func @square_row_and_column
// CHECK:         mloop.accumulate max
// CHECK:         {morf.kernel = {kind = "row-fused", {{(priced = "[^"]*", )?}}split = {{[0-9]+}}, style = "persistent"}}
// CHECK:         {morf.kernel = {kind = "final", {{(priced = "[^"]*", )?}}split = {{[0-9]+}}}}
// REPORT: nest0: reduce sum {{.*}} row (inner) reduction
// REPORT: nest1: reduce max {{.*}} column (outer) reduction
func.func @square_row_and_column(%a: tensor<?x?xf32> {morf.dims = ["M", "M"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %r = mtensor.reduce sum %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c = mtensor.reduce max %a dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  func.return %r, %c : tensor<?xf32>, tensor<?xf32>
}
