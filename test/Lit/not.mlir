// The runner's own test: `not` inverts an exit code, and a FileCheck that
// does not match fails.
// RUN: not false
// RUN: echo nothing | not FileCheck %s
// RUN: not --crash bash -c 'kill -ABRT $$'

// CHECK: this line is not in the input
