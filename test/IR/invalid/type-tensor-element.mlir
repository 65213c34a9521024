// RUN: morf-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{invalid tensor element type}}
func.func @f(%a: tensor<4xtensor<2xf32>>) {
  func.return
}

// -----

// expected-error@+1 {{tensor encodings are not supported}}
func.func @f(%a: tensor<4xf32, "enc">) {
  func.return
}

// -----

// expected-error@+1 {{unknown type '!foo.bar'}}
func.func @f(%a: !foo.bar) {
  func.return
}
