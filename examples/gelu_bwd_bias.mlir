// GELU backward beside a bias gradient (bf16 in and out, f32 inside), with the exact
// (erf) GELU:
//
//   gelu(x)  = x * Phi(x),  Phi(x) = (1 + erf(x / sqrt 2)) / 2,  phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
//   dx = dy * (Phi(x) + x * phi(x))      (pointwise over [M, N])
//   db = sum_over_M(dy)                  (a column reduction)
//
// Both read dy; `fuse-mixed-reductions` turns db into partial sums accumulated by the
// pointwise kernel.
//
// Run it:
//   morf-run examples/gelu_bwd_bias.mlir --device auto --random M=256,N=384 --check

func.func @gelu_bwd_bias(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                         %dy: tensor<?x?xbf16> {morf.dims = ["M", "N"]})
    -> (tensor<?x?xbf16>, tensor<?xbf16>) {
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %dyf = mtensor.convert %dy : tensor<?x?xbf16> to tensor<?x?xf32>
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %rs2 = mtensor.constant dense<0.7071067811865476> : tensor<1x1xf32>
  %rs2b = mtensor.broadcast %rs2 dims [0, 1] sizes(%m, %n) : tensor<1x1xf32> -> tensor<?x?xf32>
  %half = mtensor.constant dense<0.5> : tensor<1x1xf32>
  %halfb = mtensor.broadcast %half dims [0, 1] sizes(%m, %n) : tensor<1x1xf32> -> tensor<?x?xf32>
  %one = mtensor.constant dense<1.0> : tensor<1x1xf32>
  %oneb = mtensor.broadcast %one dims [0, 1] sizes(%m, %n) : tensor<1x1xf32> -> tensor<?x?xf32>
  %rs2pi = mtensor.constant dense<0.3989422804014327> : tensor<1x1xf32>
  %rs2pib = mtensor.broadcast %rs2pi dims [0, 1] sizes(%m, %n) : tensor<1x1xf32> -> tensor<?x?xf32>
  %u = mtensor.mul %xf, %rs2b : tensor<?x?xf32>
  %e = mtensor.erf %u : tensor<?x?xf32>
  %e1 = mtensor.add %oneb, %e : tensor<?x?xf32>
  %cdf = mtensor.mul %halfb, %e1 : tensor<?x?xf32>
  %x2 = mtensor.mul %xf, %xf : tensor<?x?xf32>
  %x2h = mtensor.mul %x2, %halfb : tensor<?x?xf32>
  %nx2h = mtensor.neg %x2h : tensor<?x?xf32>
  %ex = mtensor.exp %nx2h : tensor<?x?xf32>
  %pdf = mtensor.mul %ex, %rs2pib : tensor<?x?xf32>
  %xpdf = mtensor.mul %xf, %pdf : tensor<?x?xf32>
  %g = mtensor.add %cdf, %xpdf : tensor<?x?xf32>
  %dxf = mtensor.mul %dyf, %g : tensor<?x?xf32>
  %dbf = mtensor.reduce sum %dyf dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %dx = mtensor.convert %dxf : tensor<?x?xf32> to tensor<?x?xbf16>
  %db = mtensor.convert %dbf : tensor<?xf32> to tensor<?xbf16>
  return %dx, %db : tensor<?x?xbf16>, tensor<?xbf16>
}
