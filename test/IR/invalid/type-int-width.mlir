// RUN: morf-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{unsupported integer width 7}}
func.func @f(%a: i7) {
  func.return
}

// -----

// expected-error@+1 {{unsupported integer width 128}}
func.func @f(%a: tensor<4xi128>) {
  func.return
}

// -----

// expected-error@+1 {{unknown type 'i99999999999999999999'}}
func.func @f(%a: i99999999999999999999) {
  func.return
}
