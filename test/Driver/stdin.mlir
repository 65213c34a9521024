// Input from stdin: no file name or `-`; diagnostics name it <stdin>.
// RUN: morf-opt < %s | FileCheck %s
// RUN: morf-opt - < %s | FileCheck %s
// RUN: echo 'func.func @g() -> i32 { return %nope : i32 }' | not morf-opt - 2>&1 | FileCheck --check-prefix=DIAG %s

// CHECK: module {
// CHECK-NEXT: func.func @f(%[[A:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: func.return %[[A]] : tensor<4xf32>

// DIAG: <stdin>:1:{{[0-9]+}}: error: use of undeclared SSA value name '%nope'
// DIAG-NEXT: func.func @g() -> i32 { return %nope : i32 }
// DIAG-NEXT: {{^ +\^$}}

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
