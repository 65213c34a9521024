// tanh_bwd_bias over 3-D inputs [B, T, N], db summed over B and T (short-row-pointwise.mlir).
func.func @tanh_bwd_bias_3d(%x: tensor<?x?x?xbf16> {morf.dims = ["B", "T", "N"]},
                          %dy: tensor<?x?x?xbf16> {morf.dims = ["B", "T", "N"]})
    -> (tensor<?x?x?xbf16>, tensor<?xbf16>) {
  %xf = mtensor.convert %x : tensor<?x?x?xbf16> to tensor<?x?x?xf32>
  %dyf = mtensor.convert %dy : tensor<?x?x?xbf16> to tensor<?x?x?xf32>
  %t = mtensor.tanh %xf : tensor<?x?x?xf32>
  %t2 = mtensor.mul %t, %t : tensor<?x?x?xf32>
  %b = mtensor.dim %x, 0 : tensor<?x?x?xbf16>
  %m = mtensor.dim %x, 1 : tensor<?x?x?xbf16>
  %n = mtensor.dim %x, 2 : tensor<?x?x?xbf16>
  %one = mtensor.constant dense<1.0> : tensor<1x1x1xf32>
  %oneb = mtensor.broadcast %one dims [0, 1, 2] sizes(%b, %m, %n) : tensor<1x1x1xf32> -> tensor<?x?x?xf32>
  %d = mtensor.sub %oneb, %t2 : tensor<?x?x?xf32>
  %dxf = mtensor.mul %dyf, %d : tensor<?x?x?xf32>
  %dbf = mtensor.reduce sum %dyf dims [0, 1] : tensor<?x?x?xf32> -> tensor<?xf32>
  %dx = mtensor.convert %dxf : tensor<?x?x?xf32> to tensor<?x?x?xbf16>
  %db = mtensor.convert %dbf : tensor<?xf32> to tensor<?xbf16>
  return %dx, %db : tensor<?x?x?xbf16>, tensor<?xbf16>
}
