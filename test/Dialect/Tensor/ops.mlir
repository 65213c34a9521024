// RUN: morf-opt %s | morf-opt | FileCheck %s
// RUN: morf-opt %s --print-op-generic | morf-opt | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<4xf32>, tensor<f32>, tensor<2x2xbf16>, tensor<3xi1>) {
  // CHECK: mtensor.constant dense<1.0> : tensor<4xf32>
  %a = mtensor.constant dense<1.0> : tensor<4xf32>
  // CHECK: mtensor.constant dense<1.0e-5> : tensor<f32>
  %b = mtensor.constant dense<1.0e-05> : tensor<f32>
  // CHECK: mtensor.constant dense<{{\[\[}}1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %c = mtensor.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  // CHECK: mtensor.constant dense<[true, false, true]> : tensor<3xi1>
  %d = mtensor.constant dense<[true, false, true]> : tensor<3xi1>
  return %a, %b, %c, %d : tensor<4xf32>, tensor<f32>, tensor<2x2xbf16>, tensor<3xi1>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x384xf32>, %[[B:[a-z0-9]+]]: tensor<?x384xf32>)
func.func @binary(%a: tensor<?x384xf32>, %b: tensor<?x384xf32>) -> tensor<?x384xf32> {
  // CHECK: %[[R0:.*]] = mtensor.add %[[A]], %[[B]] : tensor<?x384xf32>
  %0 = mtensor.add %a, %b : tensor<?x384xf32>
  // CHECK: %[[R1:.*]] = mtensor.sub %[[R0]], %[[B]] : tensor<?x384xf32>
  %1 = mtensor.sub %0, %b : tensor<?x384xf32>
  // CHECK: %[[R2:.*]] = mtensor.mul %[[R1]], %[[A]] : tensor<?x384xf32>
  %2 = mtensor.mul %1, %a : tensor<?x384xf32>
  // CHECK: %[[R3:.*]] = mtensor.div %[[R2]], %[[B]] : tensor<?x384xf32>
  %3 = mtensor.div %2, %b : tensor<?x384xf32>
  // CHECK: %[[R4:.*]] = mtensor.max %[[R3]], %[[A]] : tensor<?x384xf32>
  %4 = mtensor.max %3, %a : tensor<?x384xf32>
  // CHECK: %[[R5:.*]] = mtensor.min %[[R4]], %[[B]] : tensor<?x384xf32>
  %5 = mtensor.min %4, %b : tensor<?x384xf32>
  // CHECK: %[[R6:.*]] = mtensor.pow %[[R5]], %[[A]] : tensor<?x384xf32>
  %6 = mtensor.pow %5, %a : tensor<?x384xf32>
  // CHECK: func.return %[[R6]] : tensor<?x384xf32>
  return %6 : tensor<?x384xf32>
}

// CHECK-LABEL: func.func @unary
func.func @unary(%a: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: %[[U0:.*]] = mtensor.neg %{{.*}} : tensor<?xf32>
  %0 = mtensor.neg %a : tensor<?xf32>
  // CHECK: %[[U1:.*]] = mtensor.exp %[[U0]] : tensor<?xf32>
  %1 = mtensor.exp %0 : tensor<?xf32>
  // CHECK: %[[U2:.*]] = mtensor.log %[[U1]] : tensor<?xf32>
  %2 = mtensor.log %1 : tensor<?xf32>
  // CHECK: %[[U3:.*]] = mtensor.sqrt %[[U2]] : tensor<?xf32>
  %3 = mtensor.sqrt %2 : tensor<?xf32>
  // CHECK: %[[U4:.*]] = mtensor.rsqrt %[[U3]] : tensor<?xf32>
  %4 = mtensor.rsqrt %3 : tensor<?xf32>
  // CHECK: %[[U5:.*]] = mtensor.tanh %[[U4]] : tensor<?xf32>
  %5 = mtensor.tanh %4 : tensor<?xf32>
  // CHECK: %[[U6:.*]] = mtensor.abs %[[U5]] : tensor<?xf32>
  %6 = mtensor.abs %5 : tensor<?xf32>
  return %6 : tensor<?xf32>
}

// CHECK-LABEL: func.func @cmp_select_convert
func.func @cmp_select_convert(%a: tensor<?xf32>, %b: tensor<?xf32>, %h: tensor<?x?xbf16>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  // CHECK: %[[C:.*]] = mtensor.cmp lt, %{{.*}}, %{{.*}} : tensor<?xf32>
  %c = mtensor.cmp lt, %a, %b : tensor<?xf32>
  // CHECK: mtensor.cmp ge, %{{.*}}, %{{.*}} : tensor<?xf32>
  %c2 = mtensor.cmp ge, %a, %b : tensor<?xf32>
  // CHECK: %[[S:.*]] = mtensor.select %[[C]], %{{.*}}, %{{.*}} : tensor<?xi1>, tensor<?xf32>
  %s = mtensor.select %c, %a, %b : tensor<?xi1>, tensor<?xf32>
  // CHECK: mtensor.convert %{{.*}} : tensor<?x?xbf16> to tensor<?x?xf32>
  %f = mtensor.convert %h : tensor<?x?xbf16> to tensor<?x?xf32>
  return %s, %f : tensor<?xf32>, tensor<?x?xf32>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %s: tensor<f32>) -> (tensor<?x?xbf16>, tensor<2x3xf32>) {
  // CHECK: %[[M:.*]] = mtensor.dim %{{.*}}, 0 : tensor<?x?xbf16>
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  // CHECK: %[[N:.*]] = mtensor.dim %{{.*}}, 1 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  // CHECK: mtensor.broadcast %{{.*}} dims [1] sizes(%[[M]], %[[N]]) : tensor<?xbf16> -> tensor<?x?xbf16>
  %b = mtensor.broadcast %w dims [1] sizes(%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  // CHECK: mtensor.broadcast %{{.*}} dims [] : tensor<f32> -> tensor<2x3xf32>
  %c = mtensor.broadcast %s dims [] : tensor<f32> -> tensor<2x3xf32>
  return %b, %c : tensor<?x?xbf16>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reduce
func.func @reduce(%a: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x1xf32>, tensor<f32>) {
  // CHECK: mtensor.reduce sum %{{.*}} dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %0 = mtensor.reduce sum %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  // CHECK: mtensor.reduce mean %{{.*}} dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %1 = mtensor.reduce mean %a dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  // CHECK: mtensor.reduce max %{{.*}} dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
  %2 = mtensor.reduce max %a dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
  // CHECK: mtensor.reduce min
  %3 = mtensor.reduce min %a dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  // CHECK: mtensor.reduce prod
  %4 = mtensor.reduce prod %a dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %0, %1, %2 : tensor<?xf32>, tensor<?x1xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @layout
func.func @layout(%a: tensor<?x384xf32>, %b: tensor<?x4x8xf32>, %k: index, %m: index) -> (tensor<384x?xf32>, tensor<?xf32>, tensor<?x4x8xf32>) {
  // CHECK: mtensor.transpose %{{.*}} perm [1, 0] : tensor<?x384xf32> -> tensor<384x?xf32>
  %t = mtensor.transpose %a perm [1, 0] : tensor<?x384xf32> -> tensor<384x?xf32>
  // CHECK: mtensor.reshape %{{.*}} sizes(%{{.*}}) : tensor<?x384xf32> -> tensor<?xf32>
  %r = mtensor.reshape %a sizes(%k) : tensor<?x384xf32> -> tensor<?xf32>
  // CHECK: %[[CL:.*]] = mtensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x4x8xf32> -> tensor<?x8xf32>
  %c = mtensor.collapse_shape %b [[0, 1], [2]] : tensor<?x4x8xf32> -> tensor<?x8xf32>
  // CHECK: mtensor.expand_shape %[[CL]] {{\[\[}}0, 1], [2]] sizes(%{{.*}}) : tensor<?x8xf32> -> tensor<?x4x8xf32>
  %e = mtensor.expand_shape %c [[0, 1], [2]] sizes(%m) : tensor<?x8xf32> -> tensor<?x4x8xf32>
  // CHECK: mtensor.reshape %{{.*}} : tensor<2x6xf32> -> tensor<3x4xf32>
  %z = mtensor.constant dense<0.0> : tensor<2x6xf32>
  %y = mtensor.reshape %z : tensor<2x6xf32> -> tensor<3x4xf32>
  return %t, %r, %e : tensor<384x?xf32>, tensor<?xf32>, tensor<?x4x8xf32>
}
