// Reduced from random program seed 554 of the GPU differential run (tools/morf-run/tests/
// gpu_differential.rs): a column sum broadcast back over the rows. On the H200 and on the CPU
// simulator the lowered kernel writes NaN into columns >= 256 when M and N are both above
// 256 (257x257: 256 NaN values; 300x300: 11264). 64x300, 300x64, 200x257 and 257x200 agree.
//
//   morf-run repro-seed554-colsum-broadcast.mlir --device auto --random "" --check
func.func @main(%a: tensor<300x300xf32>) -> (tensor<300x300xf32>) {
  %s = mtensor.reduce sum %a dims [0] : tensor<300x300xf32> -> tensor<300xf32>
  %t = mtensor.add %s, %s : tensor<300xf32>
  %b = mtensor.broadcast %t dims [1] : tensor<300xf32> -> tensor<300x300xf32>
  %n = mtensor.neg %b : tensor<300x300xf32>
  func.return %n : tensor<300x300xf32>
}
