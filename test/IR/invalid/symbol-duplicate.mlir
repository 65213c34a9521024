// RUN: morf-opt %s --split-input-file --verify-diagnostics

// expected-note@+1 {{see existing symbol definition here}}
func.func @same() {
  func.return
}
// expected-error@+1 {{redefinition of symbol named 'same'}}
func.func @same() {
  func.return
}

// -----

module {
  // expected-note@+1 {{see existing symbol definition here}}
  func.func @g(%a: f32) {
    func.return
  }
  // Another signature does not make it another symbol.
  // expected-error@+1 {{redefinition of symbol named 'g'}}
  func.func @g(%a: i32) {
    func.return
  }
}
