// RUN: morf-opt %s --dce --split-input-file --allow-unregistered-dialect | FileCheck %s

// Unused pure ops are erased, whole chains at once; used ones stay.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[N:.*]] = mtensor.neg %[[A]]
// CHECK-NEXT: func.return %[[N]]
func.func @chain(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mtensor.exp %a : tensor<4xf32>
  %1 = mtensor.mul %0, %0 : tensor<4xf32>
  %2 = mtensor.add %1, %a : tensor<4xf32>
  %3 = mtensor.neg %a : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Ops with unknown effects and their operands stay.
// CHECK-LABEL: func.func @effects
// CHECK-NEXT: %[[E:.*]] = mtensor.exp
// CHECK-NEXT: "foo.sink"(%[[E]])
// CHECK-NEXT: func.return
func.func @effects(%a: tensor<4xf32>) {
  %0 = mtensor.exp %a : tensor<4xf32>
  %1 = mtensor.neg %a : tensor<4xf32>
  "foo.sink"(%0) : (tensor<4xf32>) -> ()
  return
}
