// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @f() {
  // expected-error@+2 {{'x.op' op operand #0 does not dominate this use}}
  // expected-note@+1 {{operand defined here}}
  %a = "x.op"(%a) : (f32) -> f32
  func.return
}
