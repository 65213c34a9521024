// Two RMSNorm backward passes sharing one weight (bf16 in and out, f32 inside).
//
// One RMSNorm weight w[N] applied to two different inputs, x1[M, N] and x2[K, N] (e.g. a
// norm shared by two streams of different lengths), with upstream gradients dy1, dy2 and the
// reciprocal standard deviations rstd1[M], rstd2[K] saved by the forward passes:
//
//   xhat_i = x_i * rstd_i[:, None]
//   dx_i   = rstd_i[:, None] * (dy_i*w - xhat_i * mean_over_N(dy_i*w*xhat_i))   (row reductions)
//   dw     = sum_over_M(dy1 * xhat1) + sum_over_K(dy2 * xhat2)                 (column reductions)
//
// Two mixed-order pairs, one per input, whose column reductions feed one output: each pair
// can fuse into its own row kernel with partial column sums, and the two final reductions
// (and their sum) finish dw.
//
// Run it:
//   morf-run examples/two_norms_shared_weight.mlir --random M=256,K=128,N=384 --output-dir out
//   morf-run examples/two_norms_shared_weight.mlir --device sim --random M=64,K=48,N=96 --check
// It writes out/result0.npy (dx1), out/result1.npy (dx2) and out/result2.npy (dw).

func.func @two_norms_shared_weight(%x1: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                                   %dy1: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                                   %rstd1: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"},
                                   %x2: tensor<?x?xbf16> {morf.dims = ["K", "N"]},
                                   %dy2: tensor<?x?xbf16> {morf.dims = ["K", "N"]},
                                   %rstd2: tensor<?xf32> {morf.dims = ["K"], morf.random = "positive"},
                                   %w: tensor<?xbf16> {morf.dims = ["N"]})
    -> (tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?xbf16>) {
  %m = mtensor.dim %x1, 0 : tensor<?x?xbf16>
  %k = mtensor.dim %x2, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x1, 1 : tensor<?x?xbf16>
  %wf = mtensor.convert %w : tensor<?xbf16> to tensor<?xf32>
  // First input: dx1 and its dw contribution.
  %x1f = mtensor.convert %x1 : tensor<?x?xbf16> to tensor<?x?xf32>
  %dy1f = mtensor.convert %dy1 : tensor<?x?xbf16> to tensor<?x?xf32>
  %wb1 = mtensor.broadcast %wf dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %rb1 = mtensor.broadcast %rstd1 dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xhat1 = mtensor.mul %x1f, %rb1 : tensor<?x?xf32>
  %dyw1 = mtensor.mul %dy1f, %wb1 : tensor<?x?xf32>
  %t1 = mtensor.mul %dyw1, %xhat1 : tensor<?x?xf32>
  %c1 = mtensor.reduce mean %t1 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cb1 = mtensor.broadcast %c1 dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xc1 = mtensor.mul %xhat1, %cb1 : tensor<?x?xf32>
  %d1 = mtensor.sub %dyw1, %xc1 : tensor<?x?xf32>
  %dx1f = mtensor.mul %rb1, %d1 : tensor<?x?xf32>
  %g1 = mtensor.mul %dy1f, %xhat1 : tensor<?x?xf32>
  %dw1 = mtensor.reduce sum %g1 dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  // Second input: dx2 and its dw contribution.
  %x2f = mtensor.convert %x2 : tensor<?x?xbf16> to tensor<?x?xf32>
  %dy2f = mtensor.convert %dy2 : tensor<?x?xbf16> to tensor<?x?xf32>
  %wb2 = mtensor.broadcast %wf dims [1] sizes(%k, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %rb2 = mtensor.broadcast %rstd2 dims [0] sizes(%k, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xhat2 = mtensor.mul %x2f, %rb2 : tensor<?x?xf32>
  %dyw2 = mtensor.mul %dy2f, %wb2 : tensor<?x?xf32>
  %t2 = mtensor.mul %dyw2, %xhat2 : tensor<?x?xf32>
  %c2 = mtensor.reduce mean %t2 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cb2 = mtensor.broadcast %c2 dims [0] sizes(%k, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xc2 = mtensor.mul %xhat2, %cb2 : tensor<?x?xf32>
  %d2 = mtensor.sub %dyw2, %xc2 : tensor<?x?xf32>
  %dx2f = mtensor.mul %rb2, %d2 : tensor<?x?xf32>
  %g2 = mtensor.mul %dy2f, %xhat2 : tensor<?x?xf32>
  %dw2 = mtensor.reduce sum %g2 dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  // dw = dw1 + dw2
  %dwf = mtensor.add %dw1, %dw2 : tensor<?xf32>
  %dx1 = mtensor.convert %dx1f : tensor<?x?xf32> to tensor<?x?xbf16>
  %dx2 = mtensor.convert %dx2f : tensor<?x?xf32> to tensor<?x?xbf16>
  %dw = mtensor.convert %dwf : tensor<?xf32> to tensor<?xbf16>
  return %dx1, %dx2, %dw : tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?xbf16>
}
