// A row-fused nest that accumulates into W[i, j] but has no split: no template takes it (they
// would run it on one thread), so lower-loop-to-gpu maps it with loop-map's strategy (see
// ../schedule-report.mlir).
func.func @acc(%x: !mloop.buffer<?x?xf32>, %w: !mloop.buffer<?x?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %s = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %p = mloop.mul %v, %s : f32
      mloop.accumulate sum %p, %w[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    }
    mloop.yield
  } attributes {morf.kernel = {kind = "row-fused", style = "looped"}}
  func.return
}
