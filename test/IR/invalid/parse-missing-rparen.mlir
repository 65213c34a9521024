// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

%0 = "x.op"() : () -> f32
// expected-error@+1 {{expected ')', found ':'}}
"x.use"(%0 : (f32) -> ()

// -----

// expected-error@+1 {{expected ')', found '->'}}
"x.op"() : (f32 -> ()
