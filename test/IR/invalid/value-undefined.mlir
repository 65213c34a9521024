// RUN: not morf-opt %s --allow-unregistered-dialect 2>&1 | FileCheck %s

func.func @f() {
  "x.use"(%nope) : (f32) -> ()
  func.return
}
// CHECK: {{.*}}invalid/value-undefined.mlir:4:11: error: use of undeclared SSA value name '%nope'
// CHECK-NEXT: {{^}}  "x.use"(%nope) : (f32) -> ()
// CHECK-NEXT: {{^}}          ^
