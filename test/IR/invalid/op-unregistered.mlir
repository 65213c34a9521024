// RUN: morf-opt %s --split-input-file --verify-diagnostics

// Without --allow-unregistered-dialect.
// expected-error@+1 {{operation 'x.op' of unregistered dialect 'x' (use --allow-unregistered-dialect to accept it)}}
"x.op"() : () -> ()

// -----

// A registered dialect does not accept unknown ops, even in generic form.
// expected-error@+1 {{unregistered operation 'func.nope' found in dialect ('func') that does not allow unknown operations}}
"func.nope"() : () -> ()

// -----

// expected-error@+1 {{custom op 'x.op' is unknown}}
x.op
