// RUN: morf-opt %s --split-input-file --verify-diagnostics
// RUN: not morf-opt %s 2>&1 | FileCheck %s

// Regression (issue 8): an operand of a region op that names a value defined only inside
// the op's own body used to crash the parser ('invalid SlotMap key used'). Such a value
// is not visible to the op's operands: a located error, exit code 1.

// CHECK: {{.*}}invalid-use-in-own-region.mlir:15:25: error: use of value '%n' outside the region that defines it
// CHECK-NEXT: {{^}}  mloop.for %i = %c0 to %n step %c1 {
// CHECK-NEXT: {{^}}                        ^
func.func @for_bound() {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  // expected-error@+1 {{use of value '%n' outside the region that defines it}}
  mloop.for %i = %c0 to %n step %c1 {
    // expected-note@+1 {{defined here}}
    %n = mloop.constant 4 : index
    mloop.yield
  }
  func.return
}

// -----

func.func @parallel_bound() {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  // expected-error@+1 {{use of value '%n' outside the region that defines it}}
  mloop.parallel (%i) = (%c0) to (%n) step (%c1) {
    // expected-note@+1 {{defined here}}
    %n = mloop.constant 4 : index
    mloop.yield
  }
  func.return
}

// -----

func.func @reduce_init() {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  // expected-error@+1 {{use of value '%z' outside the region that defines it}}
  %r = mloop.reduce sum (%i) = (%c0) to (%c1) step (%c1) init(%z) : f32 {
    // expected-note@+1 {{defined here}}
    %z = mloop.constant 0.0 : f32
    mloop.yield %z : f32
  }
  func.return
}

// -----

func.func @for_iter_arg() {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  // expected-error@+1 {{use of value '%z' outside the region that defines it}}
  %s = mloop.for %i = %c0 to %c1 step %c1 iter_args(%acc = %z) -> (f32) {
    // expected-note@+1 {{defined here}}
    %z = mloop.constant 0.0 : f32
    mloop.yield %z : f32
  }
  func.return
}

// -----

func.func @gpu_if_else() {
  // expected-error@+1 {{use of value '%x' outside the region that defines it}}
  mgpu.if %x {
    mgpu.yield
  } else {
    // expected-note@+1 {{defined here}}
    %x = mloop.constant true : i1
    mgpu.yield
  }
  func.return
}

// -----

mgpu.func @in_kernel() kernel {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  mloop.for %i = %c0 to %c1 step %c1 {
    // expected-error@+1 {{use of value '%n' outside the region that defines it}}
    mloop.for %j = %c0 to %n step %c1 {
      // expected-note@+1 {{defined here}}
      %n = mloop.constant 4 : index
      mloop.yield
    }
    mloop.yield
  }
  mgpu.return
}

// -----

// The same name defined later in the enclosing block is the one the operand refers to:
// then it is a dominance error, as for any use before its definition.
func.func @defined_inside_and_after() {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  // expected-error@+1 {{'mloop.for' op operand #1 does not dominate this use}}
  mloop.for %i = %c0 to %n step %c1 {
    %n = mloop.constant 4 : index
    mloop.yield
  }
  // expected-note@+1 {{operand defined here}}
  %n = mloop.constant 8 : index
  func.return
}
