// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{custom op 'junk' is unknown}}
"x.op"() : () -> () junk

// -----

// expected-error@+1 {{expected operation name, found ')'}}
"x.op"() : () -> () )

// -----

// expected-error@+1 {{expected operation name, found '42'}}
"x.op"() : () -> () 42

// -----

func.func @f() {
  // expected-error@+1 {{expected operation name, found ']'}}
  func.return ]
}
