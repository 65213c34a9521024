// RUN: morf-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{expected type, found '>'}}
func.func @f(%a: tensor<3x>) {
  func.return
}

// -----

// expected-error@+1 {{expected 'x' in dimension list}}
func.func @f(%a: tensor<3>) {
  func.return
}

// -----

// expected-error@+1 {{unknown type 'xf32'}}
func.func @f(%a: tensor<3xxf32>) {
  func.return
}

// -----

// expected-error@+1 {{expected '<', found ')'}}
func.func @f(%a: tensor) {
  func.return
}
