// RUN: morf-opt %s --lower-tensor-to-loop | FileCheck %s

// Transpose permutes the indices.
// CHECK-LABEL: func.func @transpose
// CHECK: mloop.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NEXT: %[[V:.*]] = mloop.load %a[%[[J]], %[[I]]] : !mloop.buffer<2x3xf32>
// CHECK-NEXT: mloop.store %[[V]], %{{.*}}[%[[I]], %[[J]]] : !mloop.buffer<3x2xf32>
func.func @transpose(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = mtensor.transpose %a perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}

// collapse_shape delinearizes the collapsed index over its group.
// CHECK-LABEL: func.func @collapse
// CHECK-DAG: %[[C3:.*]] = mloop.constant 3 : index
// CHECK: mloop.parallel (%[[I:.*]]) =
// CHECK-NEXT: %[[R:.*]] = mloop.rem %[[I]], %[[C3]] : index
// CHECK-NEXT: %[[Q:.*]] = mloop.div %[[I]], %[[C3]] : index
// CHECK-NEXT: mloop.load %a[%[[Q]], %[[R]]] : !mloop.buffer<2x3xf32>
func.func @collapse(%a: tensor<2x3xf32>) -> tensor<6xf32> {
  %c = mtensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> -> tensor<6xf32>
  return %c : tensor<6xf32>
}

// expand_shape linearizes the indices of each group; the dynamic dim stays dynamic.
// CHECK-LABEL: func.func @expand
// CHECK-DAG: %[[M:.*]] = mloop.dim %b, 0 : !mloop.buffer<?x6xf32>
// CHECK-DAG: %[[C3:.*]] = mloop.constant 3 : index
// CHECK: mloop.alloc(%[[M]]) : !mloop.buffer<?x2x3xf32>
// CHECK: mloop.parallel (%[[I:.*]], %[[J:.*]], %[[K:.*]]) =
// CHECK-NEXT: %[[T:.*]] = mloop.mul %[[J]], %[[C3]] : index
// CHECK-NEXT: %[[L:.*]] = mloop.add %[[T]], %[[K]] : index
// CHECK-NEXT: mloop.load %b[%[[I]], %[[L]]] : !mloop.buffer<?x6xf32>
func.func @expand(%b: tensor<?x6xf32>) -> tensor<?x2x3xf32> {
  %m = mtensor.dim %b, 0 : tensor<?x6xf32>
  %e = mtensor.expand_shape %b [[0], [1, 2]] sizes(%m) : tensor<?x6xf32> -> tensor<?x2x3xf32>
  return %e : tensor<?x2x3xf32>
}

// reshape linearizes over the result and delinearizes over the operand.
// CHECK-LABEL: func.func @reshape
// CHECK: mloop.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NEXT: %[[T:.*]] = mloop.mul %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[F:.*]] = mloop.add %[[T]], %[[J]] : index
// CHECK-NEXT: %[[R:.*]] = mloop.rem %[[F]], %{{.*}} : index
// CHECK-NEXT: %[[Q:.*]] = mloop.div %[[F]], %{{.*}} : index
// CHECK-NEXT: mloop.load %a[%[[Q]], %[[R]]] : !mloop.buffer<2x3xf32>
func.func @reshape(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = mtensor.reshape %a : tensor<2x3xf32> -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}
