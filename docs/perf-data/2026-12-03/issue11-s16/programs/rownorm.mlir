// Diagnostic (issue 11, sixteenth session): RMSNorm backward's dx alone, without the column
// reduction dw: a row kernel with the same reads and writes but no partials, no final
// reduction and no grid barrier.
func.func @rownorm(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                   %w: tensor<?xbf16> {morf.dims = ["N"]},
                   %dy: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                   %rstd: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"})
    -> tensor<?x?xbf16> {
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf = mtensor.convert %w : tensor<?xbf16> to tensor<?xf32>
  %dyf = mtensor.convert %dy : tensor<?x?xbf16> to tensor<?x?xf32>
  %wb = mtensor.broadcast %wf dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %rb = mtensor.broadcast %rstd dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xhat = mtensor.mul %xf, %rb : tensor<?x?xf32>
  %dyw = mtensor.mul %dyf, %wb : tensor<?x?xf32>
  %t = mtensor.mul %dyw, %xhat : tensor<?x?xf32>
  %c = mtensor.reduce mean %t dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cb = mtensor.broadcast %c dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xc = mtensor.mul %xhat, %cb : tensor<?x?xf32>
  %d = mtensor.sub %dyw, %xc : tensor<?x?xf32>
  %dxf = mtensor.mul %rb, %d : tensor<?x?xf32>
  %dx = mtensor.convert %dxf : tensor<?x?xf32> to tensor<?x?xbf16>
  return %dx : tensor<?x?xbf16>
}
