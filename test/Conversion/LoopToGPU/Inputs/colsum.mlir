func.func @colsum(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> tensor<?xf32> {
  %s = mtensor.reduce sum %a dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}
