// RUN: morf-opt %s --split-input-file --verify-diagnostics

func.func @f() {
  // expected-error@+1 {{'func.call' op 'nowhere' does not reference a valid function}}
  func.call @nowhere() : () -> ()
  func.return
}

// -----

// expected-note@+1 {{callee defined here}}
func.func @g(%a: f32) {
  func.return
}
func.func @f(%a: i32) {
  // expected-error@+1 {{'func.call' op type does not match the signature of @g}}
  func.call @g(%a) : (i32) -> ()
  func.return
}

// -----

func.func @f(%a: f32) {
  // expected-error@+1 {{2 operands present, but expected 1}}
  func.call @f(%a, %a) : (f32) -> ()
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{expected callee (@name), found string}}
  func.call "f"() : () -> ()
  func.return
}
