// --verify-diagnostics reports unexpected and missing diagnostics and exits with 1.
// RUN: not morf-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s
// RUN: morf-opt %s --split-input-file --verify-diagnostics 2>/dev/null; test $? -eq 1

// CHECK: verify-diagnostics-fail.mlir:[[@LINE+3]]:10: error: unexpected error: use of undeclared SSA value name '%nope'
// CHECK-NEXT: return %nope
func.func @unexpected(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %nope : tensor<4xf32>
}

// -----

// CHECK: verify-diagnostics-fail.mlir:[[@LINE+2]]:6: error: expected error "this is never reported" was not produced
func.func @missing() {
  // expected-error@+1 {{this is never reported}}
  return
}

// -----

// The right message on the wrong line is both unexpected and missing.
// CHECK: verify-diagnostics-fail.mlir:[[@LINE+4]]:8: error: unexpected error: 'mtensor.add' op requires the same type
// CHECK: verify-diagnostics-fail.mlir:[[@LINE+2]]:6: error: expected error "requires the same type" was not produced
func.func @wrong_line(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error@+2 {{requires the same type}}
  %0 = "mtensor.add"(%a, %b) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}
