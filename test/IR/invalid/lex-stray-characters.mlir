// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{unexpected character '&'}}
"x.op"() {a = &} : () -> ()

// -----

// expected-error@+1 {{unexpected character '\\'}}
"x.op"() {a = 1} : () -> () \

// -----

// expected-error@+1 {{unexpected character ';'}}
"x.op"() : () -> () ;

// -----

// A non-ASCII character outside a string literal.
// expected-error@+1 {{unexpected character 'λ'}}
"x.op"() {a = λ} : () -> ()

// -----

// A single '/' is not a comment.
// expected-error@+1 {{unexpected character '/'}}
/ "x.op"() : () -> ()
