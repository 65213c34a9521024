// RUN: morf-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{expected function name (@name), found '('}}
func.func (%a: f32) {
  func.return
}

// -----

// expected-error@+1 {{a function with a body needs named arguments ('%name: type')}}
func.func @f(f32) {
  func.return
}

// -----

// expected-error@+1 {{body must not be empty}}
func.func @f() {}

// -----

// expected-error@+2 {{redefinition of SSA value '%a'}}
// expected-note@+1 {{previously defined here}}
func.func @f(%a: f32, %a: f32) {
  func.return
}
