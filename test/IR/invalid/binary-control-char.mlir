// RUN: not morf-opt %s --allow-unregistered-dialect 2>&1 | FileCheck %s
// A control character (0x01) between ops; the source line prints it as '?'.
"x.op"() : () -> ()
"x.op"() : () -> ()
// CHECK: {{.*}}invalid/binary-control-char.mlir:4:1: error: unexpected character '\u{1}'
// CHECK-NEXT: {{^}}?"x.op"() : () -> ()
// CHECK-NEXT: {{^}}^
