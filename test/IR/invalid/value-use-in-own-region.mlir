// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// An operand that names a value defined only inside the op's own region (issue 8): not
// visible there, so it is undeclared. The custom forms are in
// test/Dialect/Loop/invalid-use-in-own-region.mlir.
func.func @generic() {
  // expected-error@+1 {{use of undeclared SSA value name '%v'}}
  "x.region"(%v) ({
    %v = "x.def"() : () -> f32
    "x.yield"() : () -> ()
  }) : (f32) -> ()
  func.return
}

// -----

func.func @nested_generic() {
  "x.outer"() ({
    // expected-error@+1 {{use of undeclared SSA value name '%v'}}
    "x.inner"(%v) ({
      %v = "x.def"() : () -> f32
      "x.yield"() : () -> ()
    }) : (f32) -> ()
    "x.yield"() : () -> ()
  }) : () -> ()
  func.return
}
