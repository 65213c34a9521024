// colmax_rowsum without its row reduction: a column max of a bf16 matrix.
func.func @colmax(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]}) -> tensor<?xf32> {
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %cmax = mtensor.reduce max %xf dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %cmax : tensor<?xf32>
}
