// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// A function is isolated from above: a value of the module (or of another function) is
// not visible inside it, so the name is simply undeclared there.
%outer = "x.def"() : () -> f32
func.func @f() {
  // expected-error@+1 {{use of undeclared SSA value name '%outer'}}
  "x.use"(%outer) : (f32) -> ()
  func.return
}

// -----

func.func @g() {
  %mine = "x.def"() : () -> f32
  func.return
}
func.func @h() {
  // expected-error@+1 {{use of undeclared SSA value name '%mine'}}
  "x.use"(%mine) : (f32) -> ()
  func.return
}

// -----

func.func @f(%a: f32) {
  // Nor in a function nested in a region of this one.
  "x.region"() ({
    func.func @nested() {
      // expected-error@+1 {{use of undeclared SSA value name '%a'}}
      "x.use"(%a) : (f32) -> ()
      func.return
    }
    "x.yield"() : () -> ()
  }) : () -> ()
  func.return
}
