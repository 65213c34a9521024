// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{unknown escape in string literal}}
"x.op"() {s = "a\qb"} : () -> ()

// -----

// A hex escape needs two hex digits.
// expected-error@+1 {{unknown escape in string literal}}
"x.op"() {s = "a\4"} : () -> ()

// -----

// A backslash at the very end of the line.
// expected-error@+1 {{string literal}}
"x.op"() {s = "a\
