// REQUIRES: cuda
// A host function that launches no kernel (it returns its argument) still compiles and runs:
// on the simulator here, and on the GPU through a PTX module with no entry (checked on the
// H200, docs/testing.md, run 5). It used to be refused ("launches no kernel").
// RUN: morf-run %s --device gpu --random M=3,N=5 --check --output-dir %t | FileCheck %s
// CHECK: check result0: rel_err=0.0e+00 (tol 1e-05) ok
func.func @ret(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> tensor<?x?xf32> {
  return %x : tensor<?x?xf32>
}
