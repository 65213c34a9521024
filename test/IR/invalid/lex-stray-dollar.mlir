// RUN: not morf-opt %s --allow-unregistered-dialect 2>&1 | FileCheck %s

"x.op"() : () -> ()
  $ "x.op"() : () -> ()
// CHECK: {{.*}}invalid/lex-stray-dollar.mlir:4:3: error: unexpected character '$'
// CHECK-NEXT: {{^}}  $ "x.op"() : () -> ()
// CHECK-NEXT: {{^}}  ^
