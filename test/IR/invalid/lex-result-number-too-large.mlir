// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

%0:2 = "x.op"() : () -> (f32, f32)
// expected-error@+1 {{result number is too large}}
"x.use"(%0#99999999999) : (f32) -> ()
