// RUN: morf-opt %s --split-input-file --verify-diagnostics

func.func @g() {
  func.return
}
// expected-note@+1 {{in a region of 'func.func'}}
func.func @f() {
  // expected-error@+1 {{block with no terminator}}
  func.call @g() : () -> ()
}
