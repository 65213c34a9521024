// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// More digits than fit in 128 bits.
// expected-error@+1 {{integer literal is too large}}
"x.op"() {a = 99999999999999999999999999999999999999999999999999 : i64} : () -> ()

// -----

// expected-error@+1 {{integer literal is too large}}
"x.op"() {a = -0x8000000000000001 : i64} : () -> ()

// -----

// expected-error@+1 {{integer literal is too large}}
"x.op"() {a = 0x1ffffffffffffffffffffffffffffffffffff} : () -> ()

// -----

// expected-error@+1 {{integer literal is too large}}
"x.op"() {a = array<i64: 1, 99999999999999999999>} : () -> ()
