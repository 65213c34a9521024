// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{integer constant out of range for type 'i8'}}
"x.op"() {a = 300 : i8} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for type 'i8'}}
"x.op"() {a = -129 : i8} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for type 'i1'}}
"x.op"() {a = 2 : i1} : () -> ()

// -----

// expected-error@+1 {{integer constant out of range for type 'i16'}}
"x.op"() {a = 65536 : i16} : () -> ()
