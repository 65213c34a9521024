// A morf.schedule attribute edited by hand (used by ../schedule-in-ir.mlir).
module {
  func.func @rowsum(%a: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?xf32> {
    %0 = mloop.dim %a, 0 : !mloop.buffer<?x?xf32>
    %1 = mloop.dim %a, 1 : !mloop.buffer<?x?xf32>
    %2 = mloop.constant 1 : index
    %3 = mloop.constant 0.0 : f32
    %4 = mloop.constant 0 : index
    %5 = mloop.alloc(%0) : !mloop.buffer<?xf32>
    mloop.parallel (%arg0) = (%4) to (%0) step (%2) {
      %6 = mloop.reduce sum (%arg1) = (%4) to (%1) step (%2) init(%3) : f32 {
        %7 = mloop.load %a[%arg0, %arg1] : !mloop.buffer<?x?xf32>
        mloop.yield %7 : f32
      }
      mloop.store %6, %5[%arg0] : !mloop.buffer<?xf32>
      mloop.yield
    } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 4, threads = 128, threads_per_row = 32, vector = 4}}
    func.return %5 : !mloop.buffer<?xf32>
  }
}
