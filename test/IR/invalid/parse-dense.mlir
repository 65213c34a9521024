// RUN: morf-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{inferred shape of elements literal ([3]) does not match type ([4])}}
func.func @f() attributes {d = dense<[1.0, 2.0, 3.0]> : tensor<4xf32>} {
  func.return
}

// -----

// expected-error@+1 {{elements literal has rows of different lengths}}
func.func @f() attributes {d = dense<[[1, 2], [3]]> : tensor<2x2xi32>} {
  func.return
}

// -----

// expected-error@+1 {{expected integer elements, but parsed floating-point}}
func.func @f() attributes {d = dense<[1, 2.5]> : tensor<2xi32>} {
  func.return
}

// -----

// expected-error@+1 {{elements literal must be a tensor type}}
func.func @f() attributes {d = dense<1.0> : f32} {
  func.return
}

// -----

// expected-error@+1 {{elements literal type must have static shape}}
func.func @f() attributes {d = dense<1.0> : tensor<?xf32>} {
  func.return
}

// -----

// expected-error@+1 {{integer constant out of range for type 'i8'}}
func.func @f() attributes {d = dense<[1, 300]> : tensor<2xi8>} {
  func.return
}

// -----

// expected-error@+1 {{integer constant out of range for type 'i1'}}
func.func @f() attributes {d = dense<2> : tensor<2xi1>} {
  func.return
}

// -----

// expected-error@+1 {{expected element literal, found string}}
func.func @f() attributes {d = dense<["s"]> : tensor<1xf32>} {
  func.return
}

// -----

// expected-error@+1 {{integer element is too large}}
func.func @f() attributes {d = dense<[9007199254740993]> : tensor<1xi64>} {
  func.return
}

// -----

// expected-error@+1 {{elements literal mixes nested lists and scalars}}
func.func @f() attributes {d = dense<[[1], 2]> : tensor<2x1xi32>} {
  func.return
}

// -----

// expected-error@+1 {{elements literal nesting does not match the tensor shape}}
func.func @f() attributes {d = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<3x2xi32>} {
  func.return
}

// -----

// expected-error@+1 {{inferred shape of elements literal ([]) does not match type ([2])}}
func.func @f() attributes {d = dense<> : tensor<2xf32>} {
  func.return
}
