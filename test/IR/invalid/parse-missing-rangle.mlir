// RUN: morf-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{expected '>', found ')'}}
func.func @f(%a: tensor<4xf32) {
  func.return
}

// -----

// expected-error@+1 {{expected '>', found ':'}}
func.func @f() attributes {d = dense<1.0 : tensor<f32>} {
  func.return
}
