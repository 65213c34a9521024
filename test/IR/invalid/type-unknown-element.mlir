// RUN: not morf-opt %s 2>&1 | FileCheck %s

func.func @f(%a: tensor<4xfoo>) {
  func.return
}
// CHECK: {{.*}}invalid/type-unknown-element.mlir:3:27: error: unknown type 'foo'
// CHECK-NEXT: {{^}}func.func @f(%a: tensor<4xfoo>) {
// CHECK-NEXT: {{^}}                          ^
