// RUN: morf-opt %s --split-input-file --verify-diagnostics

// expected-note@+1 {{function defined here}}
func.func @f(%a: f32) -> (f32, f32) {
  // expected-error@+1 {{'func.return' op has 1 operands, but enclosing function (@f) returns 2}}
  func.return %a : f32
}

// -----

func.func @f(%a: f32) -> i32 {
  // expected-error@+1 {{'func.return' op type of return operand 0 ('f32') doesn't match function result type ('i32') in function @f}}
  func.return %a : f32
}

// -----

func.func @f(%a: f32) {
  // expected-error@+1 {{2 operands present, but expected 1}}
  func.return %a, %a : f32
}
