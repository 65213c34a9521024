// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{expected '=', found string}}
%0 "x.op"() : () -> f32

// -----

// expected-error@+1 {{expected '=', found 'func.return'}}
%a, %b func.return
