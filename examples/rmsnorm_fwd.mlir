// RMSNorm forward (bf16 in and out, f32 inside), which also returns the rstd that
// rmsnorm_bwd.mlir consumes.
//
// For x[M, N] and the weight w[N]:
//
//   rstd = rsqrt(mean_over_N(x^2) + 1e-5)        (f32, one value per row)
//   y    = x * rstd[:, None] * w                 (rounded to bf16)
//
// Run it:
//   morf-run examples/rmsnorm_fwd.mlir --random M=256,N=384 --output-dir out
//   morf-run examples/rmsnorm_fwd.mlir --input x=x.npy --input w=w.npy --output-dir out
// (x, w as float32 .npy holding bf16 values.) It writes out/result0.npy (y) and
// out/result1.npy (rstd).

func.func @rmsnorm_fwd(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                       %w: tensor<?xbf16> {morf.dims = ["N"]})
    -> (tensor<?x?xbf16>, tensor<?xf32>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf = mtensor.convert %w : tensor<?xbf16> to tensor<?xf32>
  // rstd = rsqrt(mean_over_N(x^2) + eps)
  %sq = mtensor.mul %xf, %xf : tensor<?x?xf32>
  %ms = mtensor.reduce mean %sq dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %eps = mtensor.constant dense<1.0e-05> : tensor<f32>
  %epsb = mtensor.broadcast %eps dims [] sizes(%m) : tensor<f32> -> tensor<?xf32>
  %v = mtensor.add %ms, %epsb : tensor<?xf32>
  %rstd = mtensor.rsqrt %v : tensor<?xf32>
  // y = x * rstd * w
  %rb = mtensor.broadcast %rstd dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %wb = mtensor.broadcast %wf dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xn = mtensor.mul %xf, %rb : tensor<?x?xf32>
  %yf = mtensor.mul %xn, %wb : tensor<?x?xf32>
  %y = mtensor.convert %yf : tensor<?x?xf32> to tensor<?x?xbf16>
  return %y, %rstd : tensor<?x?xbf16>, tensor<?xf32>
}
