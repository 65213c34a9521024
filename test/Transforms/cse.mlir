// RUN: morf-opt %s --cse --split-input-file --allow-unregistered-dialect | FileCheck %s

// Equivalent pure ops are merged; the operand order of commutative ops does not matter.
// CHECK-LABEL: func.func @merge
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<4xf32>, %[[B:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[S:.*]] = mtensor.add %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %[[P:.*]] = mtensor.mul %[[S]], %[[S]] : tensor<4xf32>
// CHECK-NEXT: func.return %[[P]], %[[S]]
func.func @merge(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = mtensor.add %a, %b : tensor<4xf32>
  %1 = mtensor.add %a, %b : tensor<4xf32>
  %2 = mtensor.mul %0, %1 : tensor<4xf32>
  %3 = mtensor.add %b, %a : tensor<4xf32>
  return %2, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Different operands, types or attributes keep ops apart; constants with equal values merge.
// CHECK-LABEL: func.func @distinct
// CHECK: mtensor.constant dense<1.0> : tensor<4xf32>
// CHECK-NOT: dense<1.0> : tensor<4xf32>
// CHECK: mtensor.constant dense<2.0> : tensor<4xf32>
// CHECK: mtensor.sub
// CHECK: mtensor.sub
func.func @distinct(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c1 = mtensor.constant dense<1.0> : tensor<4xf32>
  %c2 = mtensor.constant dense<1.0> : tensor<4xf32>
  %c3 = mtensor.constant dense<2.0> : tensor<4xf32>
  %0 = mtensor.sub %a, %b : tensor<4xf32>
  %1 = mtensor.sub %b, %a : tensor<4xf32>
  return %c1, %c2, %c3, %0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Functions are isolated from above: nothing is merged across them.
// CHECK-LABEL: func.func @one
// CHECK: mtensor.exp
// CHECK-LABEL: func.func @two
// CHECK: mtensor.exp
func.func @one(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mtensor.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @two(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mtensor.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Ops with unknown effects (unregistered ops) are never merged.
// CHECK-LABEL: func.func @unknown_effects
// CHECK-COUNT-2: "foo.read"
func.func @unknown_effects(%a: i32) -> (i32, i32) {
  %0 = "foo.read"(%a) : (i32) -> i32
  %1 = "foo.read"(%a) : (i32) -> i32
  return %0, %1 : i32, i32
}
