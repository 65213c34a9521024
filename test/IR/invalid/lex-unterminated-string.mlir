// RUN: not morf-opt %s --allow-unregistered-dialect 2>&1 | FileCheck %s
// A string literal that runs to the end of its line.

"x.op"() {s = "abc} : () -> ()
// CHECK: {{.*}}invalid/lex-unterminated-string.mlir:4:15: error: expected '"' in string literal
// CHECK-NEXT: "x.op"() {s = "abc} : () -> ()
// CHECK-NEXT: {{^}}              ^
