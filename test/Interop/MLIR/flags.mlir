// The MLIR flags of morf-opt: --emit accepts morf (the default), mlir and ptx; --import
// accepts morf and mlir; --ptx-backend accepts morf and mlir.
//
// RUN: morf-opt %s --emit=morf | FileCheck %s
// RUN: not morf-opt %s --emit=llvm 2>&1 | FileCheck %s --check-prefix=BADEMIT
// RUN: not morf-opt %s --ptx-backend=nvcc 2>&1 | FileCheck %s --check-prefix=BACKEND
// CHECK: func.func @f(%x: tensor<4xf32>) -> tensor<4xf32>
// BADEMIT: invalid value 'llvm' for '--emit <FORMAT>'
// BACKEND: morf-opt: error: --ptx-backend: unknown backend 'nvcc' (expected morf or mlir)

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
