// RUN: not morf-opt %s --allow-unregistered-dialect 2>&1 | FileCheck %s
// CHECK: {{.*}}invalid/lex-unterminated-string-eof.mlir:4:15: error: expected '"' in string literal
// The string is still open at the end of the file (no final newline).
"x.op"() {s = "abc