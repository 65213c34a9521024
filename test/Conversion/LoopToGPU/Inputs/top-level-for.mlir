// A prefix sum: a top-level `mloop.for` whose iterations depend on each other. No mapping
// runs it in parallel, so one thread does (see ../schedule-report.mlir).
func.func @prefix(%x: !mloop.buffer<?xf32>, %y: !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %n = mloop.dim %x, 0 : !mloop.buffer<?xf32>
  %t = mloop.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
    %s = mloop.add %acc, %v : f32
    mloop.store %s, %y[%i] : !mloop.buffer<?xf32>
    mloop.yield %s : f32
  }
  func.return
}
