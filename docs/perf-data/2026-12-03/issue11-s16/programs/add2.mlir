// Diagnostic (issue 11, sixteenth session): a pointwise kernel with the norms' traffic, two
// bf16 reads and one bf16 write per element (out = x + dy), to see what morf's pointwise
// kernels reach on the same shapes.
func.func @add2(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                %dy: tensor<?x?xbf16> {morf.dims = ["M", "N"]}) -> tensor<?x?xbf16> {
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %dyf = mtensor.convert %dy : tensor<?x?xbf16> to tensor<?x?xf32>
  %s = mtensor.add %xf, %dyf : tensor<?x?xf32>
  %o = mtensor.convert %s : tensor<?x?xf32> to tensor<?x?xbf16>
  return %o : tensor<?x?xbf16>
}
