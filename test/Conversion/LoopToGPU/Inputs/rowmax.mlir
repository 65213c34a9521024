func.func @rowmax(%a: tensor<?x?xbf16> {morf.dims = ["M", "N"]}) -> (tensor<?xbf16>, tensor<bf16>) {
  %s = mtensor.reduce max %a dims [1] : tensor<?x?xbf16> -> tensor<?xbf16>
  %t = mtensor.reduce sum %a dims [0, 1] : tensor<?x?xbf16> -> tensor<bf16>
  return %s, %t : tensor<?xbf16>, tensor<bf16>
}
