// A cooperative kernel on the CPU simulator: 4 blocks of 2 threads. Before the grid barrier
// each thread writes 10 * block + thread to %a and keeps it in a register and in shared
// memory; after it each thread reads the element of the next block (wrapping around), which
// that block wrote before the barrier, and adds its own register and shared values. The
// simulator runs each phase in every block before the next phase, so every read sees the
// other block's write, and a block keeps its values and shared memory across the barrier.
// REQUIRES: numpy
//
// RUN: rm -rf %t && morf-run %s --device sim --output-dir %t > /dev/null
// RUN: python3 -c "import numpy as n; print(n.load('%t/result0.npy').tolist()); print(n.load('%t/result1.npy').tolist())" | FileCheck %s
// A cooperative launch the simulator cannot keep (it holds every block's state between
// barriers) is a located error, not an allocation failure:
// RUN: sed -e 's/blocks(%%c4)/blocks(%%big)/' -e 's/^  %%bytes = mloop.constant 8 : index/  %%bytes = mloop.constant 8 : index\n  %%big = mloop.constant 4000000 : index/' %s > %t.big.mlir
// RUN: not morf-run %t.big.mlir --device sim --output-dir %t 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: error: 'mgpu.launch' op a cooperative launch of 4000000 blocks of 2 threads is more than the simulator keeps between grid barriers
// In PTX the counter is a module variable of the kernel; thread 0 of each block arrives and waits.
// RUN: morf-opt %s --emit=ptx | FileCheck %s --check-prefix=PTX

// CHECK: [0.0, 1.0, 10.0, 11.0, 20.0, 21.0, 30.0, 31.0]
// b[10 * blk + t] = a[next block] + 2 * (10 * blk + t)
// CHECK-NEXT: [10.0, 13.0, 40.0, 43.0, 70.0, 73.0, 60.0, 63.0]

// PTX: .global .align 4 .u32 phases_grid_barrier;
// PTX-LABEL: .entry phases(
// PTX: bar.sync 0;
// PTX-NEXT: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// PTX-NEXT: setp.ne.u32 [[NOT0:%p[0-9]+]], [[TID]], 0;
// PTX-NEXT: @[[NOT0]] bra [[DONE:\$L[0-9]+]];
// PTX: add.u32 [[INC:%r[0-9]+]], {{%r[0-9]+}}, 0x80000001;
// PTX: fence.acq_rel.gpu;
// PTX-NEXT: atom.add.relaxed.gpu.global.u32 [[OLD:%r[0-9]+]], {{\[%rd[0-9]+\]}}, [[INC]];
// PTX-NEXT: [[WAIT:\$L[0-9]+]]:
// PTX-NEXT: ld.relaxed.gpu.global.u32 [[CUR:%r[0-9]+]]
// PTX-NEXT: xor.b32 [[CUR]], [[CUR]], [[OLD]];
// PTX-NEXT: setp.lt.s32 [[FLIP:%p[0-9]+]], [[CUR]], 0;
// PTX-NEXT: @![[FLIP]] bra [[WAIT]];
// PTX-NEXT: fence.acq_rel.gpu;
// PTX-NEXT: [[DONE]]:
// PTX-NEXT: bar.sync 0;

mgpu.func @phases(%a: !mgpu.ptr<f32>, %b: !mgpu.ptr<f32>, %g: index) kernel attributes {cooperative} {
  %t = mgpu.thread_id : index
  %blk = mgpu.block_id : index
  %c1 = mloop.constant 1 : index
  %c2 = mloop.constant 2 : index
  %c10 = mloop.constant 10 : index
  %i = mloop.mul %blk, %c2 : index
  %me = mloop.add %i, %t : index
  %tens = mloop.mul %blk, %c10 : index
  %vi = mloop.add %tens, %t : index
  %v = mloop.convert %vi : index to f32
  mgpu.store %v, %a[%me] : !mgpu.ptr<f32>
  %sh = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
  mgpu.store %v, %sh[%t] : !mgpu.ptr<f32, 3>
  mgpu.grid_barrier
  %nb = mloop.add %blk, %c1 : index
  %wrap = mloop.rem %nb, %g : index
  %j0 = mloop.mul %wrap, %c2 : index
  %j = mloop.add %j0, %t : index
  %other = mgpu.load %a[%j] : !mgpu.ptr<f32>
  %s = mgpu.load %sh[%t] : !mgpu.ptr<f32, 3>
  %w0 = mloop.add %other, %v : f32
  %w = mloop.add %w0, %s : f32
  mgpu.store %w, %b[%me] : !mgpu.ptr<f32>
  mgpu.return
}

func.func @main() -> (!mloop.buffer<8xf32>, !mloop.buffer<8xf32>) {
  %c2 = mloop.constant 2 : index
  %c4 = mloop.constant 4 : index
  %bytes = mloop.constant 8 : index
  %a = mloop.alloc() : !mloop.buffer<8xf32>
  %b = mloop.alloc() : !mloop.buffer<8xf32>
  mgpu.launch @phases blocks(%c4) threads(%c2) shared(%bytes) args(%a, %b, %c4) : !mloop.buffer<8xf32>, !mloop.buffer<8xf32>, index
  return %a, %b : !mloop.buffer<8xf32>, !mloop.buffer<8xf32>
}
