// A morf.schedule attribute edited by hand (used by ../schedule-in-ir.mlir).
module {
  func.func @colsum(%a: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?xf32> {
    %0 = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
    %1 = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
    %2 = mloop.constant 1 : index
    %3 = mloop.constant 0.0 : f32
    %4 = mloop.constant 0 : index
    %5 = mloop.alloc(%1) : !mloop.buffer<?xf32>
    mloop.parallel (%arg0) = (%4) to (%1) step (%2) {
      %6 = mloop.reduce sum (%arg1) = (%4) to (%0) step (%2) init(%3) : f32 {
        %7 = mloop.load %a[%arg1, %arg0] : !mloop.buffer<?x?xf32>
        mloop.yield %7 : f32
      }
      mloop.store %6, %5[%arg0] : !mloop.buffer<?xf32>
      mloop.yield
    } attributes {morf.schedule = {final = {mapping = "final_reduction", max_grid = 528, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 2, threads = 64, threads_per_row = 32, vector = 4}, mapping = "split_partial", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 1, split_rows = 3, threads = 256, threads_per_row = 1, vector = 4}}
    func.return %5 : !mloop.buffer<?xf32>
  }
}
