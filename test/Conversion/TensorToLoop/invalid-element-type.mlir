// RUN: morf-opt %s --lower-tensor-to-loop --split-input-file --verify-diagnostics
// RUN: not morf-opt %s --pipeline=fuse --split-input-file 2>&1 | FileCheck %s

// Buffers hold f16, bf16, f32, f64 or i1 elements only. A tensor of another element type
// is a located error, never an '!mloop.buffer<i32>' that no later tool can read back
// (found by the `fuse` fuzz target; fuzz/regressions/fuse-tensor-i32-arg.mlir).

// CHECK: invalid-element-type.mlir:[[@LINE+2]]:1: error: 'func.func' op argument #0 has type 'tensor<i32>', but lower-tensor-to-loop supports tensors of f16, bf16, f32, f64 or i1 elements only
// expected-error@+1 {{'func.func' op argument #0 has type 'tensor<i32>'}}
func.func @c(%a: tensor<i32>) {
  return
}

// -----

// CHECK: invalid-element-type.mlir:[[@LINE+2]]:1: error: 'func.func' op argument #1 has type 'tensor<4xi64>'
// expected-error@+1 {{'func.func' op argument #1 has type 'tensor<4xi64>'}}
func.func @r(%a: tensor<4xf32>, %b: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  return %a, %b : tensor<4xf32>, tensor<4xi64>
}

