// --emit=ptx on a module without kernels is an error at the module, not an empty PTX
// module and exit code 0 (issue 8).
// RUN: not morf-opt %s --emit=ptx 2>&1 | FileCheck %s
// RUN: morf-opt %s --emit=ptx > %t.out 2>/dev/null; test $? -eq 1
// RUN: FileCheck --check-prefix=EMPTY --allow-empty %s < %t.out

// CHECK: emit-ptx-no-kernels.mlir:[[@LINE+4]]:1: error: 'builtin.module' op contains no 'mgpu.func' kernels to emit as PTX (run '--pipeline=gpu' first)
// CHECK-NEXT: {{^}}func.func @host(%a: f32) -> f32 {
// EMPTY-NOT: .version

func.func @host(%a: f32) -> f32 {
  return %a : f32
}
