// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

"x.op"() ({
// expected-error@+1 {{invalid block name}}
^ :
  "x.t"() : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{invalid symbol reference}}
"x.op"() {callee = @} : () -> ()

// -----

// expected-error@+1 {{invalid type identifier}}
"x.op"() : () -> !

// -----

// expected-error@+1 {{invalid attribute alias}}
"x.op"() {a = #} : () -> ()
