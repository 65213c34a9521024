// Softmax forward over rows with a column sum of its output (bf16 in and out, f32 inside).
//
// For x[M, N] (a softmax along N, one distribution per row):
//
//   mx  = max_over_N(x)                      (a row reduction, for stability)
//   e   = exp(x - mx[:, None])
//   s   = sum_over_N(e)                      (a second row reduction)
//   y   = e / s[:, None]                     (pointwise, reads both row results; rounded to bf16)
//   ys  = sum_over_M(y)                      (a column reduction of the softmax output: e.g. the
//                                             expected attention mass each key column receives)
//
// The row reductions and the column reduction read the same x: one row-fused kernel computes
// mx, s, y and partial column sums of y; a small final reduction finishes ys (f32).
//
// Run it:
//   morf-run examples/softmax_fwd_colsum.mlir --random M=256,N=384 --output-dir out
//   morf-run examples/softmax_fwd_colsum.mlir --device sim --random M=64,N=96 --check
// It writes out/result0.npy (y) and out/result1.npy (ys).

func.func @softmax_fwd_colsum(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]})
    -> (tensor<?x?xbf16>, tensor<?xf32>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  // mx = max_over_N(x); e = exp(x - mx)
  %mx = mtensor.reduce max %xf dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %mxb = mtensor.broadcast %mx dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xc = mtensor.sub %xf, %mxb : tensor<?x?xf32>
  %e = mtensor.exp %xc : tensor<?x?xf32>
  // y = e / sum_over_N(e)
  %s = mtensor.reduce sum %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %sb = mtensor.broadcast %s dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %yf = mtensor.div %e, %sb : tensor<?x?xf32>
  // ys = sum_over_M(y)
  %ys = mtensor.reduce sum %yf dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %y = mtensor.convert %yf : tensor<?x?xf32> to tensor<?x?xbf16>
  return %y, %ys : tensor<?x?xbf16>, tensor<?xf32>
}
