// Ops of unknown dialects are errors unless --allow-unregistered-dialect.
// RUN: not morf-opt %s 2>&1 | FileCheck --check-prefix=ERR %s
// RUN: morf-opt %s --allow-unregistered-dialect | FileCheck %s

// ERR: unregistered.mlir:[[@LINE+5]]:8: error: operation 'foo.bar' of unregistered dialect 'foo'
// CHECK: %[[V:.*]] = "foo.bar"(%{{.*}}) : (i32) -> i32
// CHECK: func.return %[[V]]

func.func @f(%a: i32) -> i32 {
  %0 = "foo.bar"(%a) : (i32) -> i32
  return %0 : i32
}
