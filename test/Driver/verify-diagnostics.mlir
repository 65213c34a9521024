// --verify-diagnostics: every diagnostic must be annotated and every annotation produced.
// RUN: morf-opt %s --split-input-file --verify-diagnostics

func.func @undeclared(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{use of undeclared SSA value name '%nope'}}
  return %nope : tensor<4xf32>
}

// -----

// A chunk that parses but fails to verify produces the verifier's error.
func.func @dup() {
  return
}
// expected-note@-3 {{see existing symbol definition here}}
// expected-error@below {{redefinition of symbol named 'dup'}}
func.func @dup() {
  return
}

// -----

func.func @types(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  %0 = "mtensor.add"(%a, %b) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32> // expected-error {{requires the same type}}
  return
}

// -----

func.func @above(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  %0 = "mtensor.add"(%a, %b) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  // expected-error@above {{'mtensor.add' op}}
  return
}

// -----

// A chunk without diagnostics and without annotations is fine.
func.func @ok() {
  return
}
