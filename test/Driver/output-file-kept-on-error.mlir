// The -o file is replaced only when the whole run succeeded, and atomically: a parse error,
// a verifier error or a failing pass leaves it as it was (issue 8: 'morf-opt bad.mlir -o
// bad.mlir' used to empty bad.mlir).
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf 'func.func @f() {\n  "foo"() : () -> ()\n}\n' > %t/bad.mlir
// RUN: cp %t/bad.mlir %t/bad.orig
// RUN: not morf-opt %t/bad.mlir -o %t/bad.mlir 2>&1 | FileCheck --check-prefix=PARSE %s
// RUN: cmp %t/bad.mlir %t/bad.orig
// A pass that fails (bad option) keeps the old output.
// RUN: echo 'previous output' > %t/out.mlir
// RUN: not morf-opt %s --canonicalize=max-iterations=x -o %t/out.mlir 2>/dev/null
// RUN: FileCheck --check-prefix=OLD %s < %t/out.mlir
// A verifier error keeps it too, also with --split-input-file when one chunk fails.
// RUN: printf 'func.func @g() {\n  return\n}\n// -----\nfunc.func @h() -> f32 {\n  return\n}\n' > %t/split.mlir
// RUN: not morf-opt %t/split.mlir --split-input-file -o %t/out.mlir 2>/dev/null
// RUN: FileCheck --check-prefix=OLD %s < %t/out.mlir
// A run that succeeds replaces it, and leaves no temporary file behind.
// RUN: morf-opt %s -o %t/out.mlir
// RUN: FileCheck %s < %t/out.mlir
// RUN: ls -A %t | FileCheck --check-prefix=FILES %s

// PARSE: bad.mlir:2:3: error: operation name 'foo' must be 'dialect.op'
// OLD: previous output
// CHECK: func.func @f()
// FILES: bad.mlir
// FILES-NEXT: bad.orig
// FILES-NEXT: out.mlir
// FILES-NEXT: split.mlir
// FILES-NOT: {{.}}

func.func @f() {
  return
}
