// Log-softmax backward with a column sum of its result (f32).
//
// For the log-softmax output y[M, N] (along N) and the upstream gradient dy[M, N]:
//
//   s   = sum_over_N(dy)                 (a row reduction)
//   dx  = dy - exp(y) * s[:, None]       (pointwise, reads the row result; exp(y) is the softmax)
//   dxs = sum_over_M(dx)                 (a column reduction of dx: the gradient of a bias added
//                                         before the log-softmax, shared across rows)
//
// The row and the column reduction read the same dy: one row-fused kernel computes s, dx and
// partial column sums; a small final reduction finishes dxs. (Random y need not be a real
// log-softmax output: the formula is checked as written.)
//
// Run it:
//   morf-run examples/logsoftmax_bwd_colsum.mlir --random M=256,N=384 --output-dir out
//   morf-run examples/logsoftmax_bwd_colsum.mlir --device sim --random M=64,N=96 --check
// It writes out/result0.npy (dx) and out/result1.npy (dxs).

func.func @logsoftmax_bwd_colsum(%y: tensor<?x?xf32> {morf.dims = ["M", "N"]},
                                 %dy: tensor<?x?xf32> {morf.dims = ["M", "N"]})
    -> (tensor<?x?xf32>, tensor<?xf32>) {
  %m = mtensor.dim %y, 0 : tensor<?x?xf32>
  %n = mtensor.dim %y, 1 : tensor<?x?xf32>
  %s = mtensor.reduce sum %dy dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %sb = mtensor.broadcast %s dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %p = mtensor.exp %y : tensor<?x?xf32>
  %ps = mtensor.mul %p, %sb : tensor<?x?xf32>
  %dx = mtensor.sub %dy, %ps : tensor<?x?xf32>
  %dxs = mtensor.reduce sum %dx dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %dx, %dxs : tensor<?x?xf32>, tensor<?xf32>
}
