// The linalg import reports what it does not support at the op, with file:line:col, and
// exits with 1; MLIR's own parse and verify errors come through at their location too.
//
// REQUIRES: mlir
// RUN: morf-opt --import=mlir %s --split-input-file --verify-diagnostics
// RUN: not morf-opt --import=mlir %s --split-input-file 2>&1 | FileCheck %s
// CHECK: import-invalid.mlir:{{[0-9]+}}:8: error: 'linalg.matmul' op is not supported by the linalg import
// CHECK: import-invalid.mlir:{{[0-9]+}}:8: error: custom op 'arith.nosuch' is unknown

func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  // expected-error@+1 {{'linalg.matmul' op is not supported by the linalg import}}
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%z : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

func.func @syntax(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{custom op 'arith.nosuch' is unknown}}
  %r = arith.nosuch %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @not_a_projection(%a: tensor<8xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error@+1 {{which is not a projected permutation}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 * 2)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @bad_combiner(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    // expected-error@+1 {{'arith.subf' op is not a reduction combiner}}
    %s = arith.subf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @uninitialized(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error@+1 {{reduces into a 'tensor.empty', whose contents are undefined}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @nan_ignoring(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    // expected-error@+1 {{'arith.maxnumf' op ignores NaN}}
    %m = arith.maxnumf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error@+1 {{'memref.global' op is not supported at module level by the linalg import}}
memref.global "private" @g : memref<4xf32>

// -----

// expected-error@+1 {{'func.func' op has the type '(memref<4xf32>, memref<4xf32>) -> ()', which the linalg import does not support (tensors only)}}
func.func @buffers(%a: memref<4xf32>, %b: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}
