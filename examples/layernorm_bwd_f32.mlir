// LayerNorm backward, all in f32 (the f32 twin of layernorm_bwd.mlir, without converts).
//
// For x[M, N], the weight w[N], the upstream gradient dy[M, N] and the row statistics
// mean[M], rstd[M] saved by the forward pass:
//
//   xhat = (x - mean[:, None]) * rstd[:, None]
//   c1   = mean_over_N(xhat*dy*w);  c2 = mean_over_N(dy*w)              (row reductions)
//   dx   = (dy*w - (xhat*c1 + c2)) * rstd[:, None]
//   dw   = sum_over_M(dy * xhat);   db = sum_over_M(dy)                 (column reductions)
//
// Run it:
//   morf-run examples/layernorm_bwd_f32.mlir --random M=256,N=384 --output-dir out
//   morf-run examples/layernorm_bwd_f32.mlir --input x=x.npy --input w=w.npy --input dy=dy.npy \
//       --input mean=mean.npy --input rstd=rstd.npy --output-dir out
// (every input a float32 .npy). It writes out/result0.npy (dx), out/result1.npy (dw)
// and out/result2.npy (db).

func.func @layernorm_bwd(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]},
                         %w: tensor<?xf32> {morf.dims = ["N"]},
                         %dy: tensor<?x?xf32> {morf.dims = ["M", "N"]},
                         %mean: tensor<?xf32> {morf.dims = ["M"]},
                         %rstd: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"})
    -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %wb = mtensor.broadcast %w dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %meanb = mtensor.broadcast %mean dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %rb = mtensor.broadcast %rstd dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  // xhat = (x - mean) * rstd
  %xc = mtensor.sub %x, %meanb : tensor<?x?xf32>
  %xhat = mtensor.mul %xc, %rb : tensor<?x?xf32>
  // c1 = mean_over_N(xhat*dy*w), c2 = mean_over_N(dy*w)
  %dyw = mtensor.mul %dy, %wb : tensor<?x?xf32>
  %t = mtensor.mul %xhat, %dyw : tensor<?x?xf32>
  %c1 = mtensor.reduce mean %t dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c2 = mtensor.reduce mean %dyw dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c1b = mtensor.broadcast %c1 dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %c2b = mtensor.broadcast %c2 dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  // dx = (dy*w - (xhat*c1 + c2)) * rstd
  %a = mtensor.mul %xhat, %c1b : tensor<?x?xf32>
  %a2 = mtensor.add %a, %c2b : tensor<?x?xf32>
  %d = mtensor.sub %dyw, %a2 : tensor<?x?xf32>
  %dx = mtensor.mul %d, %rb : tensor<?x?xf32>
  // dw = sum_over_M(dy * xhat), db = sum_over_M(dy)
  %g = mtensor.mul %dy, %xhat : tensor<?x?xf32>
  %dw = mtensor.reduce sum %g dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %db = mtensor.reduce sum %dy dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %dx, %dw, %db : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>
}
