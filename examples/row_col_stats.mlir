// Per-row and per-column statistics of one matrix (bf16 in, f32 out).
//
// For x[M, N]:
//
//   rmean = mean_over_N(x), rmax = max_over_N(x)     (row reductions)
//   csum  = sum_over_M(x),  cmax = max_over_M(x)     (column reductions)
//
// Four reductions over two different axes of one tensor: one row kernel reads x once,
// computes both row statistics and accumulates partial column sums and maxima; a final
// reduction finishes the columns.
//
// Run it:
//   morf-run examples/row_col_stats.mlir --random M=256,N=384 --output-dir out

func.func @row_col_stats(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]})
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %xf = mtensor.convert %x : tensor<?x?xbf16> to tensor<?x?xf32>
  %rmean = mtensor.reduce mean %xf dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %rmax = mtensor.reduce max %xf dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %csum = mtensor.reduce sum %xf dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %cmax = mtensor.reduce max %xf dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %rmean, %rmax, %csum, %cmax : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
