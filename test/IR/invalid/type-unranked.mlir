// RUN: morf-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{unranked tensors are not supported}}
func.func @f(%a: tensor<*xf32>) {
  func.return
}
