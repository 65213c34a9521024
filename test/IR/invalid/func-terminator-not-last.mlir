// RUN: not morf-opt %s 2>&1 | FileCheck %s

func.func @f() {
  func.return
  func.call @f() : () -> ()
}
// CHECK: {{.*}}invalid/func-terminator-not-last.mlir:4:3: error: 'func.return' op must be the last operation in the parent block
// CHECK-NEXT: {{^}}  func.return
// CHECK-NEXT: {{^}}  ^
