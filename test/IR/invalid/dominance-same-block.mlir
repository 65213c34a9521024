// RUN: not morf-opt %s --allow-unregistered-dialect 2>&1 | FileCheck %s

func.func @f() {
  %1 = "x.use"(%0) : (f32) -> f32
  %0 = "x.def"() : () -> f32
  func.return
}
// CHECK: {{.*}}invalid/dominance-same-block.mlir:4:8: error: 'x.use' op operand #0 does not dominate this use
// CHECK-NEXT: {{^}}  %1 = "x.use"(%0) : (f32) -> f32
// CHECK-NEXT: {{^}}       ^
// CHECK-NEXT: {{.*}}invalid/dominance-same-block.mlir:5:8: note: operand defined here
