// RUN: morf-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{'func.func' op type of entry block argument #0('f32') must match the type of the corresponding argument in function signature('i32')}}
"func.func"() ({
^bb0(%a: f32):
  "func.return"() : () -> ()
}) {sym_name = "f", function_type = (i32) -> ()} : () -> ()

// -----

// expected-error@+1 {{'func.func' op entry block must have 2 arguments to match function signature}}
"func.func"() ({
^bb0(%a: f32):
  "func.return"() : () -> ()
}) {sym_name = "f", function_type = (f32, f32) -> ()} : () -> ()

// -----

// expected-error@+1 {{'func.func' op requires a type attribute 'function_type'}}
"func.func"() ({
  "func.return"() : () -> ()
}) {sym_name = "f"} : () -> ()

// -----

// expected-error@+1 {{'func.func' op requires a string attribute 'sym_name'}}
"func.func"() ({
  "func.return"() : () -> ()
}) {function_type = () -> ()} : () -> ()

// -----

// expected-error@+1 {{'func.func' op requires 'function_type' to be a function type}}
"func.func"() ({
  "func.return"() : () -> ()
}) {sym_name = "f", function_type = f32} : () -> ()

// -----

// expected-error@+1 {{'func.func' op expects 'arg_attrs' to be an array of one dictionary per argument}}
"func.func"() ({
^bb0(%a: f32):
  "func.return"() : () -> ()
}) {sym_name = "f", function_type = (f32) -> (), arg_attrs = [{}, {}]} : () -> ()
