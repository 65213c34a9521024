// RUN: morf-opt %s --allow-unregistered-dialect --print-op-generic | morf-opt --allow-unregistered-dialect --print-op-generic | FileCheck %s
// RUN: morf-opt %s --allow-unregistered-dialect | morf-opt --allow-unregistered-dialect --print-op-generic | FileCheck %s

// The generic form of everything, including the core ops, is accepted and printed back
// unchanged; the second RUN line goes through the custom forms first.

"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<2x3xf32>, %arg1: i32):
    %0 = "func.call"(%arg0) {callee = @id} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1:2 = "test.pair"(%0, %arg1) ({
    ^bb0(%x: f32):
      "test.region_op"(%x) ({
        "test.inner"(%arg1) : (i32) -> ()
      }) : (f32) -> ()
      "test.yield"() : () -> ()
    }) {kind = "pair", n = 2 : i64} : (tensor<2x3xf32>, i32) -> (tensor<2x3xf32>, index)
    "func.return"(%1#0) : (tensor<2x3xf32>) -> ()
  }) {function_type = (tensor<2x3xf32>, i32) -> tensor<2x3xf32>, sym_name = "main"} : () -> ()
  "func.func"() ({
  ^bb0(%a: tensor<2x3xf32>):
    "func.return"(%a) : (tensor<2x3xf32>) -> ()
  }) {function_type = (tensor<2x3xf32>) -> tensor<2x3xf32>, sym_name = "id"} : () -> ()
  "test.consts"() {d = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>, h = 0xFFC00000 : f32, t = tensor<?xbf16>} : () -> ()
}) : () -> ()

// CHECK:      "builtin.module"() ({
// CHECK-NEXT:   "func.func"() ({
// CHECK-NEXT:   ^bb0(%arg0: tensor<2x3xf32>, %arg1: i32):
// CHECK-NEXT:     %[[C:[0-9a-z_]+]] = "func.call"(%arg0) {callee = @id} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:     %[[P:[0-9a-z_]+]], %{{[0-9a-z_]+}} = "test.pair"(%[[C]], %arg1) ({
// CHECK-NEXT:     ^bb0(%x: f32):
// CHECK-NEXT:       "test.region_op"(%x) ({
// CHECK-NEXT:         "test.inner"(%arg1) : (i32) -> ()
// CHECK-NEXT:       }) : (f32) -> ()
// CHECK-NEXT:       "test.yield"() : () -> ()
// CHECK-NEXT:     }) {kind = "pair", n = 2} : (tensor<2x3xf32>, i32) -> (tensor<2x3xf32>, index)
// CHECK-NEXT:     "func.return"(%[[P]]) : (tensor<2x3xf32>) -> ()
// CHECK-NEXT:   }) {function_type = (tensor<2x3xf32>, i32) -> tensor<2x3xf32>, sym_name = "main"} : () -> ()
// CHECK-NEXT:   "func.func"() ({
// CHECK-NEXT:   ^bb0(%a: tensor<2x3xf32>):
// CHECK-NEXT:     "func.return"(%a) : (tensor<2x3xf32>) -> ()
// CHECK-NEXT:   }) {function_type = (tensor<2x3xf32>) -> tensor<2x3xf32>, sym_name = "id"} : () -> ()
// CHECK-NEXT:   "test.consts"() {d = dense<{{\[\[}}1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>, h = 0xFFC00000 : f32, t = tensor<?xbf16>} : () -> ()
// CHECK-NEXT: }) : () -> ()
