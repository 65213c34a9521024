// A missing input file is an error with the OS's reason, exit code 1.
// RUN: not morf-opt %s.does-not-exist 2>&1 | FileCheck %s
// RUN: morf-opt %s.does-not-exist 2>/dev/null; test $? -eq 1

// CHECK: morf-opt: error: could not open input file '{{.*}}missing-file.mlir.does-not-exist': No such file or directory
