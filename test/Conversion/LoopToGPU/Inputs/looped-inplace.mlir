// A row loop that reads and writes the same rows (y[i, j] = 2 y[i, j] + x[i, j], in place):
// only x's loads are merged into vectors; y's loads and stores stay one per column, in order.
func.func @inplace(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?x?xf32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %two = mloop.constant 2.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %y = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    %w = mloop.mul %v, %v : f32
    mloop.store %w, %y[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %a = mloop.load %y[%i, %j] : !mloop.buffer<?x?xf32>
      %b = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %d = mloop.mul %a, %two : f32
      %e = mloop.add %d, %b : f32
      mloop.store %e, %y[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    } attributes {mapping = [{level = "lane"}]}
    mloop.yield
  } attributes {mapping = [{level = "warp", size = 4}]}
  return %y : !mloop.buffer<?x?xf32>
}
