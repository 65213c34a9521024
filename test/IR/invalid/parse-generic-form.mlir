// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+2 {{expected ':', found string}}
"x.op"()
"x.next"() : () -> ()

// -----

// expected-error@+1 {{expected function type for a generic operation}}
"x.op"() : f32

// -----

%0 = "x.op"() : () -> f32
// expected-error@+1 {{expected 1 operand type but had 2}}
"x.use"(%0) : (f32, f32) -> ()

// -----

// expected-error@+1 {{expected '(', found ':'}}
"x.op" : () -> ()

// -----

// expected-error@+1 {{operation name 'nodot' must be 'dialect.op'}}
"nodot"() : () -> ()

// -----

// expected-error@+1 {{operation name 'x.' must be 'dialect.op'}}
"x."() : () -> ()

// -----

// expected-error@+1 {{expected SSA operand, found '1'}}
"x.op"(1) : (i32) -> ()

// -----

// expected-error@+2 {{expected '->', found string}}
"x.op"() : ()
"x.next"() : () -> ()
