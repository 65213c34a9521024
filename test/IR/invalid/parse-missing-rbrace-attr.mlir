// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{expected '}', found ')'}}
"x.op"() {a = 1 ) : () -> ()

// -----

// expected-error@+1 {{expected '}', found end of file}}
"x.op"() {a = 1, b = [1, 2]