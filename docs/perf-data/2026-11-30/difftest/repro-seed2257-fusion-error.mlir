// Random program seed 2257 of the GPU differential run (hinted sizes d0=64,d1=64). The `gpu`
// pipeline rejects this valid program on the device and on the CPU simulator:
//   error: 'mloop.parallel' op cannot be fused with nest 0: the second nest accesses a buffer at
//   indices other than the ones where the other nest accesses it, ...
//
//   morf-run repro-seed2257-fusion-error.mlir --device auto --random d0=64,d1=64 --check
func.func @main(%a0: tensor<64x64xf64> {morf.dims = ["d0", "d1"]}) -> (tensor<64xf64>, tensor<64x64xf64>) {
  %v1 = mtensor.mul %a0, %a0 : tensor<64x64xf64>
  %v2 = mtensor.reduce min %a0 dims [0] : tensor<64x64xf64> -> tensor<64xf64>
  %v3 = mtensor.reduce sum %v2 dims [0] : tensor<64xf64> -> tensor<f64>
  %v4 = mtensor.min %v3, %v3 : tensor<f64>
  %v6 = mtensor.abs %v2 : tensor<64xf64>
  %v5 = mtensor.rsqrt %v6 : tensor<64xf64>
  %v7 = mtensor.add %v5, %v5 : tensor<64xf64>
  %v9 = mtensor.abs %a0 : tensor<64x64xf64>
  %v10 = mtensor.constant dense<1.0> : tensor<f64>
  %v11 = mtensor.broadcast %v10 dims [] : tensor<f64> -> tensor<64x64xf64>
  %v12 = mtensor.add %v9, %v11 : tensor<64x64xf64>
  %v8 = mtensor.div %v1, %v12 : tensor<64x64xf64>
  %v13 = mtensor.add %a0, %v11 : tensor<64x64xf64>
  %v14 = mtensor.reduce max %v1 dims [1] : tensor<64x64xf64> -> tensor<64xf64>
  func.return %v14, %v1 : tensor<64xf64>, tensor<64x64xf64>
}
