// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{expected location, found '42'}}
"x.op"() : () -> () loc(42)

// -----

// expected-error@+1 {{expected line number, found ')'}}
"x.op"() : () -> () loc("a.mlir":)

// -----

// expected-error@+1 {{invalid line number}}
"x.op"() : () -> () loc("a.mlir":99999999999:1)
