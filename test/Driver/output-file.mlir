// -o writes the output to a file instead of stdout.
// RUN: morf-opt %s -o %t > %t.stdout
// RUN: FileCheck %s < %t
// RUN: FileCheck --check-prefix=EMPTY --allow-empty %s < %t.stdout
// An output file that cannot be created is an error.
// RUN: not morf-opt %s -o %t.missing-dir/out.mlir 2>&1 | FileCheck --check-prefix=ERR %s

// CHECK: func.func @f()
// EMPTY-NOT: func
// ERR: morf-opt: error: could not open output file '{{.*}}out.mlir': No such file or directory

func.func @f() {
  return
}
