// A column max and a row sum of one matrix (bf16 in, f32 out).
//
// For x[M, N]:
//
//   cmax = max_over_M(x)      -> [N]   (a column reduction with a max combiner)
//   rsum = sum_over_N(x)      -> [M]   (a row reduction)
//
// The two reductions combine differently and run along different axes of the same x: one
// row kernel reads x once, computes each row sum and accumulates partial column maxima
// (workspace filled with -inf); a small final reduction takes the max of the partials.
//
// Run it:
//   morf-run examples/colmax_rowsum.mlir --random M=256,N=384 --output-dir out
//   morf-run examples/colmax_rowsum.mlir --device sim --random M=64,N=96 --check
// It writes out/result0.npy (cmax) and out/result1.npy (rsum).

func.func @colmax_rowsum(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]})
    -> (tensor<?xf32>, tensor<?xf32>) {
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %cmax = mtensor.reduce max %xf dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %rsum = mtensor.reduce sum %xf dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %cmax, %rsum : tensor<?xf32>, tensor<?xf32>
}
