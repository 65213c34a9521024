// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @f() {
  "x.two"() ({
    %inner = "x.def"() : () -> f32
    "x.yield"() : () -> ()
  }, {
    // A value of the first region is not visible in the second.
    // expected-error@+1 {{use of undeclared SSA value name '%inner'}}
    "x.use"(%inner) : (f32) -> ()
    "x.yield"() : () -> ()
  }) : () -> ()
  func.return
}

// -----

func.func @f() {
  "x.region"() ({
    %inner = "x.def"() : () -> f32
    "x.yield"() : () -> ()
  }) : () -> ()
  // Nor after its region ends.
  // expected-error@+1 {{use of undeclared SSA value name '%inner'}}
  "x.use"(%inner) : (f32) -> ()
  func.return
}

// -----

"x.region"() ({
^bb0:
  "x.br"() : () -> ()
^bb1:
  %v = "x.def"() : () -> f32
  "x.br"() : () -> ()
^bb2:
  // Only the entry block dominates the others here (no CFG analysis yet).
  // expected-error@+1 {{'x.use' op operand #0 does not dominate this use}}
  "x.use"(%v) : (f32) -> ()
}) : () -> ()
