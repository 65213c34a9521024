// colmax_rowsum without its column reduction: a row sum of a bf16 matrix (the same reads,
// no column partials, no grid barrier, no final reduction).
func.func @rowsum(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]}) -> tensor<?xf32> {
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %rsum = mtensor.reduce sum %xf dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %rsum : tensor<?xf32>
}
