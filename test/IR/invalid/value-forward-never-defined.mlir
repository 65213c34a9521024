// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @f() {
  // A forward reference is fine until the end of the function.
  // expected-error@+1 {{use of undeclared SSA value name '%later'}}
  "x.use"(%later) : (f32) -> ()
  "x.region"() ({
    "x.use"(%later) : (f32) -> ()
  }) : () -> ()
  func.return
}

// -----

// At the top level, without a function around it.
// expected-error@+1 {{use of undeclared SSA value name '%0'}}
"x.use"(%0) : (i32) -> ()
