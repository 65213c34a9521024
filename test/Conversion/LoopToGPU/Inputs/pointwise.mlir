func.func @pointwise(%a: tensor<?x?xbf16> {morf.dims = ["M", "N"]}, %b: tensor<?xbf16> {morf.dims = ["N"]}) -> tensor<?x?xbf16> {
  %m = mtensor.dim %a, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %a, 1 : tensor<?x?xbf16>
  %bb = mtensor.broadcast %b dims [1] sizes(%m, %n) : tensor<?xbf16> -> tensor<?x?xbf16>
  %s = mtensor.mul %a, %bb : tensor<?x?xbf16>
  %t = mtensor.tanh %s : tensor<?x?xbf16>
  return %t : tensor<?x?xbf16>
}
