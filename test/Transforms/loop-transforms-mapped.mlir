// The loop transforms refuse a nest that carries a GPU mapping (`loop-map`'s output): they
// restructure the loops the mapping names (found by the pass-pipeline fuzzer: loop-split of a
// mapped nest left a lane reduce under an unmapped loop, which failed the verifier after the
// pass). The error is at the mapped loop; nothing is written.
// RUN: not morf-opt %s --loop-split=size=4 2>&1 | FileCheck %s
// RUN: not morf-opt %s --loop-tile=sizes=4 2>&1 | FileCheck %s
// RUN: not morf-opt %s --loop-interchange='perm=0' 2>&1 | FileCheck %s
// RUN: not morf-opt %s --loop-coalesce 2>&1 | FileCheck %s
// CHECK: loop-transforms-mapped.mlir:[[@LINE+6]]:3: error: 'mloop.parallel' op carries a GPU mapping ('mapping'): loop transforms run before 'loop-map'
func.func @p(%x: !mloop.buffer<?x?xf32>, %m: index, %n: index) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %one = mloop.constant 1.0 : f32
  %s = mloop.alloc(%m) : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce prod (%j) = (%c0) to (%n) step (%c1) init(%one) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    } attributes {mapping = [{level = "lane"}]}
    mloop.store %r, %s[%i] : !mloop.buffer<?xf32>
    mloop.yield
  } attributes {mapping = [{level = "warp"}]}
  func.return
}
