// Activation backward beside a bias gradient (bf16 in and out, f32 inside).
//
// For the pre-activation x[M, N] of `y = tanh(x) + b` and the upstream gradient dy[M, N]:
//
//   dx = dy * (1 - tanh(x)^2)          (pointwise over [M, N])
//   db = sum_over_M(dy)                (a column reduction)
//
// Both read dy; `fuse-mixed-reductions` turns db into partial sums accumulated by the
// pointwise kernel, so dy is read once, then a small final reduction sums the partials.
//
// Run it:
//   morf-run examples/tanh_bwd_bias.mlir --random M=256,N=384 --output-dir out

func.func @tanh_bwd_bias(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                         %dy: tensor<?x?xbf16> {morf.dims = ["M", "N"]})
    -> (tensor<?x?xbf16>, tensor<?xbf16>) {
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %dyf = mtensor.convert %dy : tensor<?x?xbf16> to tensor<?x?xf32>
  %t = mtensor.tanh %xf : tensor<?x?xf32>
  %t2 = mtensor.mul %t, %t : tensor<?x?xf32>
  %m = mtensor.dim %x, 0 : tensor<?x?xbf16>
  %n = mtensor.dim %x, 1 : tensor<?x?xbf16>
  %one = mtensor.constant dense<1.0> : tensor<1x1xf32>
  %oneb = mtensor.broadcast %one dims [0, 1] sizes(%m, %n) : tensor<1x1xf32> -> tensor<?x?xf32>
  %d = mtensor.sub %oneb, %t2 : tensor<?x?xf32>
  %dxf = mtensor.mul %dyf, %d : tensor<?x?xf32>
  %dbf = mtensor.reduce sum %dyf dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %dx = mtensor.convert %dxf : tensor<?x?xf32> to tensor<?x?xbf16>
  %db = mtensor.convert %dbf : tensor<?xf32> to tensor<?xbf16>
  return %dx, %db : tensor<?x?xbf16>, tensor<?xbf16>
}
