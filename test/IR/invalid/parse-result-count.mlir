// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{operation defines 1 result but was provided 2 to bind}}
%a, %b = "x.op"() : () -> f32

// -----

// expected-error@+1 {{operation defines 2 results but was provided 3 to bind}}
%a:3 = "x.op"() : () -> (f32, f32)

// -----

// expected-error@+1 {{operation defines 0 results but was provided 1 to bind}}
%a = "x.op"() : () -> ()

// -----

// expected-error@+1 {{expected a result count between 1 and 4096}}
%a:0 = "x.op"() : () -> ()

// -----

// expected-error@+1 {{result names cannot carry a result number}}
%a#0 = "x.op"() : () -> f32
