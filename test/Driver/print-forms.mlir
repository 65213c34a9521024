// --print-op-generic (and its aliases) prints the generic form; --mlir-print-debuginfo adds locations.
// RUN: morf-opt %s --print-op-generic | FileCheck --check-prefix=GENERIC %s
// RUN: morf-opt %s --mlir-print-op-generic | FileCheck --check-prefix=GENERIC %s
// RUN: morf-opt %s --print-generic | morf-opt | FileCheck --check-prefix=CUSTOM %s
// RUN: morf-opt %s --mlir-print-debuginfo | FileCheck --check-prefix=LOC %s

// GENERIC: "func.return"
// CUSTOM: func.return %{{.*}} : tensor<4xf32>
// LOC: loc(

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mtensor.neg %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
