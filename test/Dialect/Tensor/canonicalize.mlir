// RUN: morf-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NOT: mtensor.add
// CHECK: func.return %[[X]], %[[X]] : tensor<4xf32>, tensor<4xf32>
func.func @add_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = mtensor.constant dense<0.0> : tensor<4xf32>
  %0 = mtensor.add %x, %z : tensor<4xf32>
  %1 = mtensor.add %z, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mul_one_sub_zero_div_one
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NOT: mtensor.mul
// CHECK-NOT: mtensor.sub
// CHECK-NOT: mtensor.div
// CHECK: func.return %[[X]] : tensor<4xf32>
func.func @mul_one_sub_zero_div_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = mtensor.constant dense<0.0> : tensor<4xf32>
  %o = mtensor.constant dense<1.0> : tensor<4xf32>
  %0 = mtensor.mul %x, %o : tensor<4xf32>
  %1 = mtensor.sub %0, %z : tensor<4xf32>
  %2 = mtensor.div %1, %o : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_constants
// CHECK: %[[C:.*]] = mtensor.constant dense<3.0> : tensor<4xf32>
// CHECK-NOT: mtensor.add
// CHECK: func.return %[[C]] : tensor<4xf32>
func.func @fold_constants() -> tensor<4xf32> {
  %a = mtensor.constant dense<1.0> : tensor<4xf32>
  %b = mtensor.constant dense<2.0> : tensor<4xf32>
  %0 = mtensor.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_dense_unary
// CHECK: %[[C:.*]] = mtensor.constant dense<[-1.0, 2.0]> : tensor<2xf32>
// CHECK: func.return %[[C]]
func.func @fold_dense_unary() -> tensor<2xf32> {
  %a = mtensor.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %0 = mtensor.neg %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?xf32>)
// CHECK-NOT: mtensor.neg
// CHECK: func.return %[[X]]
func.func @neg_neg(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mtensor.neg %x : tensor<?xf32>
  %1 = mtensor.neg %0 : tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @convert_roundtrips
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>, %[[H:[a-z0-9]+]]: tensor<4xbf16>)
// CHECK: %[[B:.*]] = mtensor.convert %[[X]] : tensor<4xf32> to tensor<4xbf16>
// CHECK: %[[BB:.*]] = mtensor.convert %[[B]] : tensor<4xbf16> to tensor<4xf32>
// CHECK: func.return %[[X]], %[[H]], %[[BB]], %[[X]]
func.func @convert_roundtrips(%x: tensor<4xf32>, %h: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>) {
  %d = mtensor.convert %x : tensor<4xf32> to tensor<4xf64>
  %dd = mtensor.convert %d : tensor<4xf64> to tensor<4xf32>
  %w = mtensor.convert %h : tensor<4xbf16> to tensor<4xf32>
  %ww = mtensor.convert %w : tensor<4xf32> to tensor<4xbf16>
  %b = mtensor.convert %x : tensor<4xf32> to tensor<4xbf16>
  %bb = mtensor.convert %b : tensor<4xbf16> to tensor<4xf32>
  %s = mtensor.convert %x : tensor<4xf32> to tensor<4xf32>
  return %dd, %ww, %bb, %s : tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @convert_chain
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = mtensor.convert %[[X]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT: func.return %[[R]]
func.func @convert_chain(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %d = mtensor.convert %x : tensor<4xf32> to tensor<4xf64>
  %b = mtensor.convert %d : tensor<4xf64> to tensor<4xbf16>
  return %b : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @transposes
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = mtensor.transpose %[[X]] perm [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: func.return %[[X]], %[[T]]
func.func @transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %i = mtensor.transpose %x perm [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %a = mtensor.transpose %x perm [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %b = mtensor.transpose %a perm [1, 0, 2] : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  %c = mtensor.transpose %x perm [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %d = mtensor.transpose %c perm [1, 0, 2] : tensor<2x4x3xf32> -> tensor<4x2x3xf32>
  %r = mtensor.add %i, %b : tensor<2x3x4xf32>
  %z = mtensor.constant dense<0.0> : tensor<2x3x4xf32>
  %s = mtensor.mul %r, %z : tensor<2x3x4xf32>
  %y = mtensor.sub %b, %z : tensor<2x3x4xf32>
  return %y, %d : tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @select_const
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<4xf32>, %[[B:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NOT: mtensor.select
// CHECK: func.return %[[A]], %[[B]]
func.func @select_const(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = mtensor.constant dense<true> : tensor<4xi1>
  %f = mtensor.constant dense<false> : tensor<4xi1>
  %0 = mtensor.select %t, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = mtensor.select %f, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_reduce_splat
// CHECK-DAG: %[[B:.*]] = mtensor.constant dense<2.0> : tensor<3x4xf32>
// CHECK-DAG: %[[R:.*]] = mtensor.constant dense<8.0> : tensor<3xf32>
// CHECK: func.return %[[B]], %[[R]]
func.func @broadcast_reduce_splat() -> (tensor<3x4xf32>, tensor<3xf32>) {
  %s = mtensor.constant dense<2.0> : tensor<f32>
  %b = mtensor.broadcast %s dims [] : tensor<f32> -> tensor<3x4xf32>
  %r = mtensor.reduce sum %b dims [1] : tensor<3x4xf32> -> tensor<3xf32>
  return %b, %r : tensor<3x4xf32>, tensor<3xf32>
}

// -----

// A dynamic result type cannot hold a constant: the broadcast stays.
// CHECK-LABEL: func.func @broadcast_dynamic
// CHECK: mtensor.broadcast
func.func @broadcast_dynamic(%n: index) -> tensor<?xf32> {
  %s = mtensor.constant dense<2.0> : tensor<f32>
  %b = mtensor.broadcast %s dims [] sizes(%n) : tensor<f32> -> tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

// Adding a non-constant value is left alone.
// CHECK-LABEL: func.func @add_zero_dynamic
// CHECK: mtensor.add
func.func @add_zero_dynamic(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mtensor.add %x, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}
