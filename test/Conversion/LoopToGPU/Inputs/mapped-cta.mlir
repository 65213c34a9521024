// A CTA per row (grid of at most 2 CTAs): a max over the row's threads (a block reduction),
// a seq loop storing the row's max, the shifted row over the threads; then the columns'
// sums with the rows in order and the columns over the grid (each column in one CTA).
func.func @cta(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %zero = mloop.constant 0.0 : f32
  %ninf = mloop.constant 0xFF800000 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %y = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>
  %s = mloop.alloc(%m) : !mloop.buffer<?xf32>
  %w = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.fill %zero, %w : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce max (%j) = (%c0) to (%n) step (%c1) init(%ninf) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    } attributes {mapping = [{level = "thread", size = 96}]}
    mloop.for %t = %c0 to %c1 step %c1 {
      mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
      mloop.yield
    }
    mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      %d = mloop.sub %v, %r : f32
      mloop.store %d, %y[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield
    } attributes {mapping = [{level = "thread", size = 96}]}
    mloop.yield
  } attributes {mapping = [{level = "grid", size = 2}]}
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.accumulate sum %v, %w[%j] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {mapping = [{level = "seq"}, {level = "grid", size = 3}]}
  return %y, %s, %w : !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>, !mloop.buffer<?xf32>
}
