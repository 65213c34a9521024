// RUN: not morf-opt %s 2>&1 | FileCheck %s

func.func @f() {
  func.return

// CHECK: {{.*}}invalid/parse-missing-rbrace.mlir:7:1: error: expected '}' at end of region, found end of file
