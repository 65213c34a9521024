// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{duplicate key 'a' in dictionary attribute}}
"x.op"() {a = 1, a = 2} : () -> ()

// -----

// expected-error@+1 {{expected attribute value, found '}'}}
"x.op"() {a = } : () -> ()

// -----

// expected-error@+1 {{expected attribute name, found '1'}}
"x.op"() {1 = 2} : () -> ()

// -----

// expected-error@+1 {{expected ']', found '}'}}
"x.op"() {a = [1, 2} : () -> ()

// -----

// expected-error@+1 {{nested symbol references are not supported}}
"x.op"() {a = @m::@f} : () -> ()
