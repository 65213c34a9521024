// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @f() {
  // expected-note@+1 {{previously defined here}}
  %a = "x.op"() : () -> f32
  // expected-error@+1 {{redefinition of SSA value '%a'}}
  %a = "x.op"() : () -> f32
  func.return
}

// -----

// expected-note@+1 {{previously defined here}}
func.func @f(%arg0: f32) {
  // The argument is visible in nested regions, so redefining it there is an error too.
  "x.region"() ({
    // expected-error@+1 {{redefinition of SSA value '%arg0'}}
    %arg0 = "x.op"() : () -> f32
    "x.yield"() : () -> ()
  }) : () -> ()
  func.return
}

// -----

"x.region"() ({
// expected-note@+1 {{previously defined here}}
^bb0(%x: f32, %y: f32):
  // expected-error@+1 {{redefinition of SSA value '%y'}}
  %y = "x.op"() : () -> f32
}) : () -> ()
