// LayerNorm forward (bf16 in and out, f32 inside), which also returns the mean and rstd
// that layernorm_bwd.mlir consumes.
//
// For x[M, N], the weight w[N] and the bias b[N]:
//
//   mean = mean_over_N(x)                                   (f32, one value per row)
//   var  = mean_over_N((x - mean[:, None])^2)
//   rstd = rsqrt(var + 1e-5)                                (f32, one value per row)
//   y    = (x - mean[:, None]) * rstd[:, None] * w + b      (rounded to bf16)
//
// Run it:
//   morf-run examples/layernorm_fwd.mlir --random M=256,N=384 --output-dir out
//   morf-run examples/layernorm_fwd.mlir --input x=x.npy --input w=w.npy --input b=b.npy \
//       --output-dir out
// (x, w, b as float32 .npy holding bf16 values.) It writes out/result0.npy (y),
// out/result1.npy (mean) and out/result2.npy (rstd).

func.func @layernorm_fwd(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                         %w: tensor<?xbf16> {morf.dims = ["N"]},
                         %b: tensor<?xbf16> {morf.dims = ["N"]})
    -> (tensor<?x?xbf16>, tensor<?xf32>, tensor<?xf32>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %wf = mtensor.convert %w : tensor<?xbf16> to tensor<?xf32>
  %bf = mtensor.convert %b : tensor<?xbf16> to tensor<?xf32>
  // mean, then the variance of the centered rows
  %mean = mtensor.reduce mean %xf dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %meanb = mtensor.broadcast %mean dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xc = mtensor.sub %xf, %meanb : tensor<?x?xf32>
  %sq = mtensor.mul %xc, %xc : tensor<?x?xf32>
  %var = mtensor.reduce mean %sq dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  // rstd = rsqrt(var + eps)
  %eps = mtensor.constant dense<1.0e-05> : tensor<f32>
  %epsb = mtensor.broadcast %eps dims [] sizes(%m) : tensor<f32> -> tensor<?xf32>
  %ve = mtensor.add %var, %epsb : tensor<?xf32>
  %rstd = mtensor.rsqrt %ve : tensor<?xf32>
  // y = (x - mean) * rstd * w + b
  %rb = mtensor.broadcast %rstd dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %wb = mtensor.broadcast %wf dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %bb = mtensor.broadcast %bf dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %xn = mtensor.mul %xc, %rb : tensor<?x?xf32>
  %xw = mtensor.mul %xn, %wb : tensor<?x?xf32>
  %yf = mtensor.add %xw, %bb : tensor<?x?xf32>
  %y = mtensor.convert %yf : tensor<?x?xf32> to tensor<?x?xbf16>
  return %y, %mean, %rstd : tensor<?x?xbf16>, tensor<?xf32>, tensor<?xf32>
}
