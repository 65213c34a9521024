// RUN: not morf-opt %s 2>&1 | FileCheck %s

func.func @f(%a: tensor<99999999999999999999xf32>) {
  func.return
}
// CHECK: {{.*}}invalid/size-dim-overflow.mlir:3:25: error: dimension is too large
// CHECK-NEXT: {{^}}func.func @f(%a: tensor<99999999999999999999xf32>) {
// CHECK-NEXT: {{^}}                        ^
