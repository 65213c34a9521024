// --timing reports the parser, each pass and the output to stderr.
// RUN: morf-opt %s --cse --canonicalize --timing 2>&1 >/dev/null | FileCheck %s
// RUN: morf-opt %s --timing --split-input-file 2>&1 >/dev/null | FileCheck --check-prefix=NOPASS %s

// CHECK: ... Execution time report ...
// CHECK: Total Execution Time: {{[0-9.]+}} seconds
// CHECK: ----Wall Time----  ----Name----
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Parser
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  cse
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  canonicalize
// CHECK-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Output
// CHECK-NEXT: {{[0-9.]+}} (100.0%)  Total

// NOPASS: Parser
// NOPASS-NEXT: Output

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mtensor.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
