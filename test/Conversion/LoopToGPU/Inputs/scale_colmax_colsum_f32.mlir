// A pointwise f32 nest beside two column reductions of different kinds (flat-partials.mlir):
// y = x * dy, m = max over rows of x, s = sum over rows of dy.
func.func @scale_colmax_colsum(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]},
                               %dy: tensor<?x?xf32> {morf.dims = ["M", "N"]})
    -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %y = mtensor.mul %x, %dy : tensor<?x?xf32>
  %m = mtensor.reduce max %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %s = mtensor.reduce sum %dy dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %y, %m, %s : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>
}
