// The tutorial's program (docs/tutorial.md): per-row sum of squares and per-column sum of x * w.
//
// For x[M, N] (bf16) and w[N] (bf16):
//
//   ss[i] = sum_j x[i, j]^2              (a row reduction)
//   cs[j] = sum_i x[i, j] * w[j]         (a column reduction)
//
// Two reductions over different axes of one product: one row kernel can read x once.

func.func @sumsq(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                 %w: tensor<?xbf16> {morf.dims = ["N"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf = mtensor.convert %w : tensor<?xbf16> to tensor<?xf32>
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %wb = mtensor.broadcast %wf dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %sq = mtensor.mul %xf, %xf : tensor<?x?xf32>
  %ss = mtensor.reduce sum %sq dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %xw = mtensor.mul %xf, %wb : tensor<?x?xf32>
  %cs = mtensor.reduce sum %xw dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %ss, %cs : tensor<?xf32>, tensor<?xf32>
}
