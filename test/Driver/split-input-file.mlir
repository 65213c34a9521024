// --split-input-file processes each `// -----` chunk on its own: outputs are separated by
// `// -----`, diagnostics keep the line numbers of the whole file, and one failing chunk
// makes the run fail without stopping the others.
// RUN: not morf-opt %s --split-input-file 2>&1 | FileCheck %s
// Without the flag the file is one module: the first error ends the run and nothing is printed.
// RUN: not morf-opt %s 2>&1 | FileCheck --check-prefix=WHOLE %s

// CHECK: split-input-file.mlir:[[@LINE+19]]:10: error: use of undeclared SSA value name '%nope'
// CHECK-NEXT: {{^}}  return %nope : tensor<4xf32>
// CHECK-NEXT: {{^         \^$}}
// CHECK: func.func @first
// CHECK: {{^}}// -----
// CHECK-NEXT: {{^}}// -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @first

// WHOLE: split-input-file.mlir:27:10: error: use of undeclared SSA value name '%nope'
// WHOLE-NOT: module

func.func @first() {
  return
}

// -----

func.func @broken(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %nope : tensor<4xf32>
}

// -----

func.func @first() {
  return
}
