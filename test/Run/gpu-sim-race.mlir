// The simulator's shared-memory race detector through morf-run: a warp hands values to other
// lanes through shared memory. With a warp barrier between the store and the load it runs
// (each warp reverses its 32 elements); without one the load reads an element another lane
// wrote with nothing ordering them, which a GPU may not show yet: a located error, exit 1.
//
// RUN: morf-run %s --device sim --output-dir %t | FileCheck %s
// RUN: sed 's|^  mgpu.warp_barrier$|  // (no barrier)|' %s > %t.racy.mlir
// RUN: not morf-run %t.racy.mlir --device sim --output-dir %t/racy 2>&1 | FileCheck %s --check-prefix=RACE

// CHECK: result0: !mloop.buffer<64xf32> [64] -> {{.*}}result0.npy
// RACE: racy.mlir:[[@LINE+17]]:8: error: 'mgpu.load' op shared-memory race: reads element 0 that thread 31 of block 0 wrote with no barrier between them
// RACE-SAME: (thread 0, block 0)

mgpu.func @reverse(%p: !mgpu.ptr<f32>) kernel {
  %t = mgpu.thread_id : index
  %l = mgpu.lane_id : index
  %w = mgpu.warp_id : index
  %c31 = mloop.constant 31 : index
  %c32 = mloop.constant 32 : index
  %v = mloop.convert %t : index to f32
  %base = mloop.mul %w, %c32 : index
  %r = mloop.sub %c31, %l : index
  %at = mloop.add %base, %r : index
  %s = mgpu.shared_alloc {size = 64 : i64} : !mgpu.ptr<f32, 3>
  mgpu.store %v, %s[%at] : !mgpu.ptr<f32, 3>
  mgpu.warp_barrier
  %mine = mloop.add %base, %l : index
  %x = mgpu.load %s[%mine] : !mgpu.ptr<f32, 3>
  mgpu.store %x, %p[%t] : !mgpu.ptr<f32>
  mgpu.return
}

func.func @main() -> !mloop.buffer<64xf32> {
  %c1 = mloop.constant 1 : index
  %c64 = mloop.constant 64 : index
  %c0 = mloop.constant 0 : index
  %out = mloop.alloc() : !mloop.buffer<64xf32>
  mgpu.launch @reverse blocks(%c1) threads(%c64) shared(%c0) args(%out) : !mloop.buffer<64xf32>
  return %out : !mloop.buffer<64xf32>
}
