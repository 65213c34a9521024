// RMSNorm backward (bf16 in and out, f32 inside).
//
// For x[M, N], the weight w[N], the upstream gradient dy[M, N] and the reciprocal
// standard deviation rstd[M] saved by the forward pass:
//
//   xhat = x * rstd[:, None]
//   dx   = rstd[:, None] * (dy*w - xhat * mean_over_N(dy*w*xhat))   (a row reduction)
//   dw   = sum_over_M(dy * xhat)                                      (a column reduction)
//
// The two reductions run along different axes over the same x and dy: the
// "mixed-order reduction" that morf fuses into one kernel. Inputs are converted to
// f32, everything is computed in f32, and dx, dw are rounded to bf16 at the end.
// `morf.dims` names the dynamic dimensions (so `morf-run --random` can size them);
// rstd is `morf.random = "positive"` because a reciprocal standard deviation is > 0.
//
// Run it:
//   morf-run examples/rmsnorm_bwd.mlir --random M=256,N=384 --output-dir out
//   morf-run examples/rmsnorm_bwd.mlir --input x=x.npy --input w=w.npy \
//       --input dy=dy.npy --input rstd=rstd.npy --output-dir out
// (x, w, dy as float32 .npy holding bf16 values; rstd float32.) It writes
// out/result0.npy (dx) and out/result1.npy (dw).

func.func @rmsnorm_bwd(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                       %w: tensor<?xbf16> {morf.dims = ["N"]},
                       %dy: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                       %rstd: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"})
    -> (tensor<?x?xbf16>, tensor<?xbf16>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf = mtensor.convert %w : tensor<?xbf16> to tensor<?xf32>
  %dyf = mtensor.convert %dy : tensor<?x?xbf16> to tensor<?x?xf32>
  %wb = mtensor.broadcast %wf dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %rb = mtensor.broadcast %rstd dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  // xhat = x * rstd[:, None]
  %xhat = mtensor.mul %xf, %rb : tensor<?x?xf32>
  // c = mean_over_N(dy*w*xhat), one value per row
  %dyw = mtensor.mul %dyf, %wb : tensor<?x?xf32>
  %t = mtensor.mul %dyw, %xhat : tensor<?x?xf32>
  %c = mtensor.reduce mean %t dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %cb = mtensor.broadcast %c dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  // dx = rstd * (dy*w - xhat*c)
  %xc = mtensor.mul %xhat, %cb : tensor<?x?xf32>
  %d = mtensor.sub %dyw, %xc : tensor<?x?xf32>
  %dxf = mtensor.mul %rb, %d : tensor<?x?xf32>
  // dw = sum_over_M(dy * xhat)
  %g = mtensor.mul %dyf, %xhat : tensor<?x?xf32>
  %dwf = mtensor.reduce sum %g dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %dx = mtensor.convert %dxf : tensor<?x?xf32> to tensor<?x?xbf16>
  %dw = mtensor.convert %dwf : tensor<?xf32> to tensor<?xbf16>
  return %dx, %dw : tensor<?x?xbf16>, tensor<?xbf16>
}
