// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @f() {
  "x.region"() ({
    // The use sits in a region of an op that comes before the definition.
    // expected-error@+1 {{'x.use' op operand #0 does not dominate this use}}
    "x.use"(%v) : (f32) -> ()
    "x.yield"() : () -> ()
  }) : () -> ()
  // expected-note@+1 {{operand defined here}}
  %v = "x.def"() : () -> f32
  func.return
}
