// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{floating point value not valid for specified type}}
"x.op"() {a = 1.5 : i32} : () -> ()

// -----

// expected-error@+1 {{hexadecimal float literal is too large for 'f32'}}
"x.op"() {a = 0x1FFFFFFFF : f32} : () -> ()

// -----

// expected-error@+1 {{hexadecimal float literal is too large}}
"x.op"() {a = 0x10000 : bf16} : () -> ()

// -----

// expected-error@+1 {{floating point value not valid for specified type}}
"x.op"() {a = 2.0 : tensor<4xf32>} : () -> ()
