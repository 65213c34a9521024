// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{invalid SSA name}}
% = "x.op"() : () -> f32

// -----

"x.op"() ({
^bb0(%a: f32):
  // expected-error@+1 {{invalid SSA name}}
  "x.use"(%) : (f32) -> ()
}) : () -> ()

// -----

// expected-error@+1 {{invalid SSA name}}
%"quoted" = "x.op"() : () -> f32
