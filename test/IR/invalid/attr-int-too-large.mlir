// RUN: not morf-opt %s --allow-unregistered-dialect 2>&1 | FileCheck %s

"x.op"() {a = 99999999999999999999999} : () -> ()
// CHECK: {{.*}}invalid/attr-int-too-large.mlir:3:15: error: integer literal is too large
// CHECK-NEXT: {{^}}"x.op"() {a = 99999999999999999999999} : () -> ()
// CHECK-NEXT: {{^}}              ^
