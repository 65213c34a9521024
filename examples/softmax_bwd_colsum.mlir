// Softmax backward with a column sum of its result (f32).
//
// For the softmax output y[M, N] (along N) and the upstream gradient dy[M, N]:
//
//   s   = sum_over_N(dy * y)            (a row reduction)
//   dx  = y * (dy - s[:, None])         (pointwise, reads the row result)
//   dxs = sum_over_M(dx)                (a column reduction of dx: e.g. the gradient of a bias
//                                        added before the softmax, shared across rows)
//
// The row and the column reduction read the same y and dy: one row-fused kernel computes s,
// dx and partial column sums; a small final reduction finishes dxs.
//
// Run it:
//   morf-run examples/softmax_bwd_colsum.mlir --random M=256,N=384 --output-dir out

func.func @softmax_bwd_colsum(%y: tensor<?x?xf32> {morf.dims = ["M", "N"], morf.random = "positive"},
                              %dy: tensor<?x?xf32> {morf.dims = ["M", "N"]})
    -> (tensor<?x?xf32>, tensor<?xf32>) {
  %m = mtensor.dim %y, 0 : tensor<?x?xf32>
  %n = mtensor.dim %y, 1 : tensor<?x?xf32>
  %p = mtensor.mul %dy, %y : tensor<?x?xf32>
  %s = mtensor.reduce sum %p dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %sb = mtensor.broadcast %s dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %d = mtensor.sub %dy, %sb : tensor<?x?xf32>
  %dx = mtensor.mul %y, %d : tensor<?x?xf32>
  %dxs = mtensor.reduce sum %dx dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %dx, %dxs : tensor<?x?xf32>, tensor<?xf32>
}
