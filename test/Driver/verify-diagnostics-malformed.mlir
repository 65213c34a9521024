// expected-error@-5 {{points before the first line of the file}}
// RUN: not morf-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s
// RUN: morf-opt %s --split-input-file --verify-diagnostics 2>/dev/null; test $? -eq 1
// RUN: morf-opt %s --verify-diagnostics 2>/dev/null; test $? -eq 1

// A malformed annotation is an error at the annotation and fails the run; it is never
// skipped (issue 8). The CHECK lines spell the annotation names as '{{.}}xpected-...' so
// that they are not annotations themselves.

// CHECK: verify-diagnostics-malformed.mlir:1:4: error: '{{.}}xpected-error@-5' refers to line -4, before the first line

// CHECK: verify-diagnostics-malformed.mlir:[[@LINE+1]]:4: error: line offset '+99999999999999999999' in '{{.}}xpected-error@+99999999999999999999' is too large
// expected-error@+99999999999999999999 {{overflow}}
func.func @offset_overflow() {
  return
}

// -----

// CHECK: verify-diagnostics-malformed.mlir:[[@LINE+1]]:4: error: expected {{.*}} to end the message of '{{.}}xpected-error'
// expected-error {{never closed
func.func @unterminated() {
  return
}

// -----

// CHECK: verify-diagnostics-malformed.mlir:[[@LINE+1]]:4: error: unknown location '@left' in '{{.}}xpected-warning' (expected '@+N', '@-N', '@above', '@below' or '@unknown')
// expected-warning@left {{where}}
func.func @unknown_designator() {
  return
}

// -----

// CHECK: verify-diagnostics-malformed.mlir:[[@LINE+1]]:4: error: unknown location '@+' in '{{.}}xpected-error'
// expected-error@+ {{no number}}
func.func @offset_without_digits() {
  return
}

// -----

// CHECK: verify-diagnostics-malformed.mlir:[[@LINE+1]]:4: error: unknown annotation '{{.}}xpected-foo' (expected '{{.}}xpected-error', '{{.}}xpected-warning', '{{.}}xpected-remark' or '{{.}}xpected-note')
// expected-foo {{what}}
func.func @unknown_kind() {
  return
}

// -----

// CHECK: verify-diagnostics-malformed.mlir:[[@LINE+1]]:4: error: expected {{.*}} to start the message of '{{.}}xpected-error'
// expected-error without braces
func.func @no_message() {
  return
}

// -----

// CHECK: verify-diagnostics-malformed.mlir:[[@LINE+2]]:6: error: '{{.}}xpected-error@+10' refers to line {{[0-9]+}}, past the last line
func.func @past_the_chunk() {
  // expected-error@+10 {{beyond}}
  return
}

// -----

// CHECK: verify-diagnostics-malformed.mlir:[[@LINE+4]]:4: error: '{{.}}xpected-note@below' has no line below it to refer to
func.func @nothing_below() {
  return
}
// expected-note@below {{at the end}}
