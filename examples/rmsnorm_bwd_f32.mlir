// RMSNorm backward, all in f32 (the f32 twin of rmsnorm_bwd.mlir, without converts).
//
// For x[M, N], the weight w[N], the upstream gradient dy[M, N] and the reciprocal
// standard deviation rstd[M] saved by the forward pass:
//
//   xhat = x * rstd[:, None]
//   dx   = rstd[:, None] * (dy*w - xhat * mean_over_N(dy*w*xhat))   (a row reduction)
//   dw   = sum_over_M(dy * xhat)                                      (a column reduction)
//
// Run it:
//   morf-run examples/rmsnorm_bwd_f32.mlir --random M=256,N=384 --output-dir out
//   morf-run examples/rmsnorm_bwd_f32.mlir --input x=x.npy --input w=w.npy \
//       --input dy=dy.npy --input rstd=rstd.npy --output-dir out
// (every input a float32 .npy). It writes out/result0.npy (dx) and out/result1.npy (dw).

func.func @rmsnorm_bwd(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]},
                       %w: tensor<?xf32> {morf.dims = ["N"]},
                       %dy: tensor<?x?xf32> {morf.dims = ["M", "N"]},
                       %rstd: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"})
    -> (tensor<?x?xf32>, tensor<?xf32>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %wb = mtensor.broadcast %w dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %rb = mtensor.broadcast %rstd dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  // xhat = x * rstd[:, None]
  %xhat = mtensor.mul %x, %rb : tensor<?x?xf32>
  // c = mean_over_N(dy*w*xhat), one value per row
  %dyw = mtensor.mul %dy, %wb : tensor<?x?xf32>
  %t = mtensor.mul %dyw, %xhat : tensor<?x?xf32>
  %c = mtensor.reduce mean %t dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cb = mtensor.broadcast %c dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  // dx = rstd * (dy*w - xhat*c)
  %xc = mtensor.mul %xhat, %cb : tensor<?x?xf32>
  %d = mtensor.sub %dyw, %xc : tensor<?x?xf32>
  %dx = mtensor.mul %rb, %d : tensor<?x?xf32>
  // dw = sum_over_M(dy * xhat)
  %g = mtensor.mul %dy, %xhat : tensor<?x?xf32>
  %dw = mtensor.reduce sum %g dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %dx, %dw : tensor<?x?xf32>, tensor<?xf32>
}
