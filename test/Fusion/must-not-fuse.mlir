// Reductions over different axes that must not become partials in one kernel.
// RUN: morf-opt %s --lower-tensor-to-loop --fuse-mixed-reductions='report' --split-input-file \
// RUN:   2>%t.report | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report

// No shared input: two groups, each its own kernel, nothing to save.
// CHECK-LABEL: func.func @no_shared
// CHECK-NOT:     mloop.accumulate
// CHECK:         {morf.kernel = {kind = "reduction"{{(, priced = "[^"]*")?}}}}
// CHECK:         {morf.kernel = {kind = "reduction"{{(, priced = "[^"]*")?}}}}
// REPORT: @no_shared: chosen plan: nest0 ; nest1
// REPORT: (fewer than two reductions)
func.func @no_shared(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}, %b: tensor<?x?xf32> {morf.dims = ["M", "N"]})
    -> (tensor<?xf32>, tensor<?xf32>) {
  %r = mtensor.reduce sum %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c = mtensor.reduce sum %b dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %r, %c : tensor<?xf32>, tensor<?xf32>
}

// -----

// The column sum is consumed by a pointwise nest that reads the unreduced x: that nest
// cannot join the row kernel (the column result exists only after the final), so it stays a
// kernel of its own after the final.
// CHECK-LABEL: func.func @col_consumed
// CHECK:         {morf.kernel = {kind = "row-fused", {{(priced = "[^"]*", )?}}split = {{[0-9]+}}, style = "persistent"}}
// CHECK:         {morf.kernel = {kind = "final", {{(priced = "[^"]*", )?}}split = {{[0-9]+}}}}
// CHECK:         mloop.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK:           mloop.load %x[%[[I]], %[[J]]]
// CHECK:         {morf.kernel = {kind = "pointwise"{{(, priced = "[^"]*")?}}}}
// REPORT: @col_consumed: chosen plan: rowfused.persistent[nest0 + partial(nest1, S={{[0-9]+}})] ; final(nest1, S={{[0-9]+}}) ; nest2
func.func @col_consumed(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %r = mtensor.reduce sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c = mtensor.reduce sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %cb = mtensor.broadcast %c dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %y = mtensor.sub %x, %cb : tensor<?x?xf32>
  return %r, %y : tensor<?xf32>, tensor<?x?xf32>
}

// -----

// Not a must-not-fuse case any more, kept as the boundary: at 4 x 8 the fused plan is two
// launches like the unfused one (the row kernel stores each split's partial once, so its
// workspace needs no fill), and it moves fewer bytes, so it is taken.
// CHECK-LABEL: func.func @tiny
// CHECK:         mloop.accumulate
// REPORT: @tiny: chosen plan: rowfused.persistent[nest0 + partial(nest1, S=1)] ; final(nest1, S=1)
func.func @tiny(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %p = mtensor.mul %x, %dy : tensor<4x8xf32>
  %r = mtensor.reduce sum %p dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  %c = mtensor.reduce sum %p dims [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %r, %c : tensor<4xf32>, tensor<8xf32>
}
