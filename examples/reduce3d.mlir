// Mixed-order reductions of a 3-D tensor (bf16 in, f32 out).
//
// For x[B, M, N] (e.g. a batch of B sequences of M tokens with N features):
//
//   csum  = sum_over_B_M(x)      -> [N]     (a reduction over the two leading dims (0, 1))
//   rmean = mean_over_N(x)       -> [B, M]  (a reduction over the inner dim 2)
//
// Both read x once each in the unfused program. Fused, one kernel walks x in row order,
// computes each row mean and accumulates partial column sums over the flattened (B, M)
// rows; a small final reduction finishes csum. The partials split the whole flattened
// reduced domain (B*M rows), not only B.
//
// Run it:
//   morf-run examples/reduce3d.mlir --random B=8,M=256,N=384 --output-dir out
//   morf-run examples/reduce3d.mlir --device sim --random B=4,M=16,N=96 --check
// It writes out/result0.npy (csum) and out/result1.npy (rmean).

func.func @reduce3d(%x: tensor<?x?x?xbf16> {morf.dims = ["B", "M", "N"]})
    -> (tensor<?xf32>, tensor<?x?xf32>) {
  %xf = mtensor.convert %x : tensor<?x?x?xbf16> to tensor<?x?x?xf32>
  %csum = mtensor.reduce sum %xf dims [0, 1] : tensor<?x?x?xf32> -> tensor<?xf32>
  %rmean = mtensor.reduce mean %xf dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  return %csum, %rmean : tensor<?xf32>, tensor<?x?xf32>
}
