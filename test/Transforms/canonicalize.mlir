// RUN: morf-opt %s --canonicalize=test-convergence --split-input-file | FileCheck %s
// RUN: morf-opt %s --canonicalize='fold=false' --split-input-file | FileCheck --check-prefix=NOFOLD %s
// RUN: morf-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1}))' --split-input-file | FileCheck --check-prefix=NESTED %s

// Folding chains to a fixpoint: constants fold, identities vanish, dead ops are erased.
// CHECK-LABEL: func.func @fold_chain
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NOT: mtensor.add
// CHECK-NOT: mtensor.mul
// CHECK: func.return %[[X]] : tensor<4xf32>
// NOFOLD-LABEL: func.func @fold_chain
// NOFOLD: mtensor.add
// NESTED-LABEL: func.func @fold_chain
// NESTED: func.return %{{.*}} : tensor<4xf32>
func.func @fold_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = mtensor.constant dense<1.0> : tensor<4xf32>
  %m1 = mtensor.constant dense<-1.0> : tensor<4xf32>
  %z = mtensor.add %one, %m1 : tensor<4xf32>
  %0 = mtensor.add %x, %z : tensor<4xf32>
  %1 = mtensor.mul %0, %one : tensor<4xf32>
  %dead = mtensor.exp %1 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Nothing to do: the IR is unchanged and the run converges at once.
// CHECK-LABEL: func.func @nothing
// CHECK-NEXT: %[[E:.*]] = mtensor.exp
// CHECK-NEXT: func.return %[[E]]
func.func @nothing(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mtensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Patterns: convert(convert(x)) through a wider type becomes one convert.
// CHECK-LABEL: func.func @convert_chain
// CHECK-NEXT: %[[C:.*]] = mtensor.convert %{{.*}} : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT: func.return %[[C]]
func.func @convert_chain(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = mtensor.convert %x : tensor<4xf32> to tensor<4xf64>
  %1 = mtensor.convert %0 : tensor<4xf64> to tensor<4xbf16>
  return %1 : tensor<4xbf16>
}
