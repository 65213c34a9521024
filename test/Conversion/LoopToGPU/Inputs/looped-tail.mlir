// A mapped CTA over 1-D rows: the lane loops take vectors of 4 f32 up to the last full vector
// and the scalar form for the rest (n = 67: 16 vectors, then 3 columns), since no row stride
// constrains the guard. A sum, a max, and an inner parallel that stores.
func.func @tail(%x: !mloop.buffer<?xf32> {morf.dims = ["N"]}, %w: !mloop.buffer<?xf32> {morf.dims = ["N"]}) -> (!mloop.buffer<?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c2 = mloop.constant 2 : index
  %zero = mloop.constant 0.0 : f32
  %ninf = mloop.constant -1.0e30 : f32
  %n = mloop.dim %x, 0 : !mloop.buffer<?xf32>
  %y = mloop.alloc(%n) : !mloop.buffer<?xf32>
  %s = mloop.alloc(%c2) : !mloop.buffer<?xf32>
  mloop.parallel (%b) = (%c0) to (%c1) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%j] : !mloop.buffer<?xf32>
      %u = mloop.load %w[%j] : !mloop.buffer<?xf32>
      %p = mloop.mul %v, %u : f32
      mloop.yield %p : f32
    } attributes {mapping = [{level = "lane"}]}
    %q = mloop.reduce max (%j) = (%c0) to (%n) step (%c1) init(%ninf) : f32 {
      %v = mloop.load %x[%j] : !mloop.buffer<?xf32>
      mloop.yield %v : f32
    } attributes {mapping = [{level = "lane"}]}
    mloop.store %r, %s[%c0] : !mloop.buffer<?xf32>
    mloop.store %q, %s[%c1] : !mloop.buffer<?xf32>
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%j] : !mloop.buffer<?xf32>
      %d = mloop.mul %v, %r : f32
      %e = mloop.sub %d, %q : f32
      mloop.store %e, %y[%j] : !mloop.buffer<?xf32>
      mloop.yield
    } attributes {mapping = [{level = "lane"}]}
    mloop.yield
  } attributes {mapping = [{level = "warp", size = 1}]}
  return %y, %s : !mloop.buffer<?xf32>, !mloop.buffer<?xf32>
}
