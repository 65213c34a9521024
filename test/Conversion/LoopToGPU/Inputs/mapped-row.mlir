// A row kernel mapped by hand: tiles of 8 rows over a persistent grid of at most 3 CTAs, a
// row per warp, the row reduction and the inner parallel over the lanes.
func.func @row_kernel(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c8 = mloop.constant 8 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %y = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>
  %s = mloop.alloc(%m) : !mloop.buffer<?xf32>
  %m7 = mloop.add %m, %c8 : index
  %m8 = mloop.sub %m7, %c1 : index
  %nb = mloop.div %m8, %c8 : index
  mloop.parallel (%b) = (%c0) to (%nb) step (%c1) {
    %base = mloop.mul %b, %c8 : index
    %left = mloop.sub %m, %base : index
    %ub = mloop.min %left, %c8 : index
    mloop.parallel (%w) = (%c0) to (%ub) step (%c1) {
      %i = mloop.add %base, %w : index
      %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
        %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
        mloop.yield %v : f32
      } attributes {mapping = [{level = "lane"}]}
      mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
      mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
        %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
        %d = mloop.mul %v, %r : f32
        mloop.store %d, %y[%i, %j] : !mloop.buffer<?x?xf32>
        mloop.yield
      } attributes {mapping = [{level = "lane", size = 32}]}
      mloop.yield
    } attributes {mapping = [{level = "warp", size = 8}]}
    mloop.yield
  } attributes {mapping = [{level = "grid", persistent = true, size = 3}]}
  return %y, %s : !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>
}
