// A 'morf.dims' name that is no identifier cannot become a size hint (hints travel in
// pass-option text, where "N x" read as an option 'x'; found by the interp fuzz target):
// the run goes on without a hint for that dim, and --check passes.
// RUN: morf-run %s --device sim --random "M=4,N x=3" --check --output-dir %t | FileCheck %s
// CHECK: check result0: {{.*}} ok
func.func @f(%x: tensor<?x?xf32> {morf.dims = ["M", "N x"]}) -> tensor<?xf32> {
  %s = mtensor.reduce sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}
