// mtensor.erf round-trips, folds on constants (f64 erf, rounded to f32) and lowers to
// mloop.erf through the elementwise interface, fused into its consumer's nest.
// RUN: morf-opt %s | morf-opt | FileCheck --check-prefix=RT %s
// RUN: morf-opt %s --canonicalize | FileCheck --check-prefix=FOLD %s
// RUN: morf-opt %s --lower-tensor-to-loop | FileCheck %s
// RUN: morf-opt %s --lower-tensor-to-loop | morf-opt | FileCheck %s

// RT-LABEL: func.func @erf_scale
// RT: mtensor.erf %{{.*}} : tensor<?x4xf32>
// CHECK-LABEL: func.func @erf_scale
// CHECK: mloop.parallel
// CHECK: %[[A:.*]] = mloop.load
// CHECK-NEXT: %[[E:.*]] = mloop.erf %[[A]] : f32
// CHECK-NEXT: %[[M:.*]] = mloop.mul %[[E]], %[[A]] : f32
// CHECK-NEXT: mloop.store %[[M]]
func.func @erf_scale(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %e = mtensor.erf %a : tensor<?x4xf32>
  %m = mtensor.mul %e, %a : tensor<?x4xf32>
  return %m : tensor<?x4xf32>
}

// erf(0.5) = 0.52049987781... rounds to the f32 printed (shortest) as 0.5204999.
// FOLD-LABEL: func.func @erf_const
// FOLD-NOT: mtensor.erf
// FOLD: mtensor.constant dense<0.5204999> : tensor<2xf32>
func.func @erf_const() -> tensor<2xf32> {
  %c = mtensor.constant dense<0.5> : tensor<2xf32>
  %e = mtensor.erf %c : tensor<2xf32>
  return %e : tensor<2xf32>
}
