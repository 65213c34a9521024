// The exact GELU backward with a bias gradient (examples/gelu_bwd_bias.mlir, whose
// pointwise part uses mtensor.erf) compiled with the `gpu` pipeline: on the CPU simulator
// its outputs match the fp64 interpreter, as they do through the interpreter alone.
//
// RUN: morf-run %S/../../examples/gelu_bwd_bias.mlir --device sim --random M=37,N=100 --check --output-dir %t/a 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/gelu_bwd_bias.mlir --device interp --random M=5,N=3 --check --output-dir %t/b 2>&1 | FileCheck --check-prefix=INTERP %s
//
// CHECK: ran {{[1-9][0-9]*}} kernel launch{{(es)?}} on the GPU simulator
// CHECK: check result0: rel_err={{.*}} (tol 1e-02) ok
// CHECK: check result1: rel_err={{.*}} (tol 1e-02) ok
// INTERP: result0: tensor<?x?xbf16> [5, 3]
//
// In f32, erf(3x) and its row sum. (The simulator evaluates the kernel's `mloop.erf` with
// its interpreter semantics; the f32 PTX sequence is measured by
// passes/tests/ptx_math_model.py and, on a GPU, by runtime/engine/tests/gpu_math.rs.)
// RUN: morf-run %s --device sim --random M=33,N=70 --check --output-dir %t/c 2>&1 | FileCheck --check-prefix=F32 %s
// F32: ran {{[1-9][0-9]*}} kernel launch{{(es)?}} on the GPU simulator
// F32: check result0: rel_err={{.*}} (tol 1e-05) ok
// F32: check result1: rel_err={{.*}} (tol 1e-05) ok

func.func @erf_rowsum(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %three = mtensor.constant dense<3.0> : tensor<1x1xf32>
  %threeb = mtensor.broadcast %three dims [0, 1] sizes(%m, %n) : tensor<1x1xf32> -> tensor<?x?xf32>
  %u = mtensor.mul %x, %threeb : tensor<?x?xf32>
  %e = mtensor.erf %u : tensor<?x?xf32>
  %s = mtensor.reduce sum %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %e, %s : tensor<?x?xf32>, tensor<?xf32>
}
