// RUN: morf-opt %s --split-input-file --verify-diagnostics

// One more than 2^40.
// expected-error@+1 {{dimension 1099511627777 is too large (at most 2^40)}}
func.func @f(%a: tensor<1099511627777x2xf32>) {
  func.return
}

// -----

// Every dimension is fine, their product is not.
// expected-error@+1 {{shaped type has too many elements (at most 2^40)}}
func.func @f(%a: tensor<1048576x1048576x2xf32>) {
  func.return
}

// -----

// expected-error@+1 {{shaped type has too many elements}}
func.func @f() attributes {d = dense<0.0> : tensor<1048576x1048577xf32>} {
  func.return
}
