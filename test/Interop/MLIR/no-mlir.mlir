// Without MLIR (the default build: morf-opt and morf-run without the cargo feature `mlir`),
// the MLIR flags are clear errors with exit code 1, before any input is read.
//
// UNSUPPORTED: mlir
// RUN: not morf-opt %s --emit=mlir 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not morf-opt %s --import=mlir 2>&1 | FileCheck %s --check-prefix=IMPORT
// RUN: not morf-opt %s --pipeline=gpu --emit=ptx --ptx-backend=mlir 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not morf-run %s --import=mlir 2>&1 | FileCheck %s --check-prefix=MRUN
// EMIT: morf-opt: error: --emit=mlir is not available: this build has no MLIR (rebuild morf-opt with the cargo feature 'mlir'
// IMPORT: morf-opt: error: --import=mlir is not available: this build has no MLIR
// PTX: morf-opt: error: --ptx-backend=mlir is not available: MLIR interop is not available
// MRUN: morf-run: error: --import=mlir: MLIR interop is not available

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
