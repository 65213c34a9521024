// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{expected ')', found '->'}}
"x.op"() {t = (f32 -> f32} : () -> ()

// -----

// expected-error@+1 {{expected type, found ','}}
"x.op"() : (, f32) -> ()

// -----

// expected-error@+1 {{expected type, found '}'}}
"x.op"() {t = (f32) -> } : () -> ()
