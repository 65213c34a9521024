// RUN: not morf-opt %s --lower-tensor-to-loop --split-input-file 2>&1 | FileCheck %s

func.func @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: error: 'func.call' op has tensor operands or results, which lower-tensor-to-loop cannot lower (only mtensor ops and func.return are supported)
  %y = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// RUN: not morf-opt %s --lower-tensor-to-loop=accumulator-type=f16 2>&1 | FileCheck --check-prefix=OPT %s
// OPT: option 'accumulator-type' expects f32 or f64, got 'f16'
