// --check compares NaN by position: where the fp64 reference itself is NaN (sqrt of the
// negative inputs), a compiled output with NaN at the same positions passes, and the
// relative error is taken over the other positions. A NaN where the reference has a
// number fails (unit tests in gpu_run.rs: compare_values).
//
// RUN: morf-run %s --device sim --random N=1000 --seed 3 --check --output-dir %t 2>&1 | FileCheck %s
// RUN: morf-run %s --device auto --random N=1000 --seed 3 --check --output-dir %t 2>&1 | FileCheck %s
//
// CHECK: result0: {{.*}} [1000] -> {{.*}}result0.npy
// CHECK: check result0: rel_err={{[0-9.e+-]+}} (tol 1e-05) ok
// CHECK-NOT: FAILED

func.func @root(%x: tensor<?xf32> {morf.dims = ["N"]}) -> tensor<?xf32> {
  %r = mtensor.sqrt %x : tensor<?xf32>
  return %r : tensor<?xf32>
}
