// A resident-grid kernel on the CPU simulator: 4 blocks of 2 threads. Before the grid tail
// each thread writes 10 * block + thread to %a; after it the last 2 blocks to arrive go on as a
// grid of 2 (`%r` = 0, 1, `%n` = 2) and the others return. Thread t of rank r sums the
// elements t, t + 2, ... of %a that rank r's half holds, which other blocks wrote before the
// tail, and stores it, with the count, at 2 r + t of %b and %c. On the GPU the ranks follow
// arrival; the sums do not depend on which block took which.
// REQUIRES: numpy
//
// RUN: rm -rf %t && morf-run %s --device sim --output-dir %t > /dev/null
// RUN: python3 -c "import numpy as n; print(n.load('%t/result0.npy').tolist()); print(n.load('%t/result1.npy').tolist())" | FileCheck %s
// RUN: morf-opt %s --emit=ptx | FileCheck %s --check-prefix=PTX
// And the printed form reads back the same.
// RUN: morf-opt %s | morf-opt | FileCheck %s --check-prefix=IR

// Rank 0 takes elements 0..3 (0, 1, 10, 11), rank 1 elements 4..7 (20, 21, 30, 31); thread t
// the ones at t, t + 2 of its half.
// CHECK: [10.0, 12.0, 50.0, 52.0]
// CHECK-NEXT: [2.0, 2.0, 2.0, 2.0]

// IR: mgpu.func @tail(%{{.*}}) kernel attributes {resident_grid} {
// IR: %{{.*}}, %{{.*}} = mgpu.grid_tail {ctas = 2}

// The counter and the generation are module variables of the kernel; thread 0 of each block
// takes a ticket, the last block bumps the generation, the other ranked blocks wait for it,
// and a block whose rank is negative exits.
// PTX-DAG: .global .align 4 .u32 tail_tail_count;
// PTX-DAG: .global .align 4 .u32 tail_tail_gen;
// PTX-LABEL: .entry tail(
// PTX: .shared .align 4 .s32 tail_tail_rank;
// PTX: bar.sync 0;
// PTX: min.u32 [[T:%r[0-9]+]], {{%r[0-9]+}}, 2;
// PTX: ld.relaxed.gpu.global.u32 [[GEN0:%r[0-9]+]], {{\[%rd[0-9]+\]}};
// PTX-NEXT: fence.acq_rel.gpu;
// PTX-NEXT: atom.add.relaxed.gpu.global.u32 {{%r[0-9]+}}, {{\[%rd[0-9]+\]}}, 1;
// PTX: st.relaxed.gpu.global.u32 {{\[%rd[0-9]+\]}}, 0;
// PTX: bra [[PUBLISH:\$L[0-9]+]];
// PTX-NEXT: {{\$L[0-9]+}}:
// PTX-NEXT: setp.lt.s32 [[NEG:%p[0-9]+]], {{%r[0-9]+}}, 0;
// PTX-NEXT: @[[NEG]] bra [[PUBLISH]];
// PTX-NEXT: [[WAIT:\$L[0-9]+]]:
// PTX-NEXT: ld.relaxed.gpu.global.u32 [[CUR:%r[0-9]+]], {{\[%rd[0-9]+\]}};
// PTX-NEXT: setp.eq.u32 [[SAME:%p[0-9]+]], [[CUR]], [[GEN0]];
// PTX-NEXT: @[[SAME]] bra [[WAIT]];
// PTX-NEXT: fence.acq_rel.gpu;
// PTX-NEXT: [[PUBLISH]]:
// PTX-NEXT: st.shared.s32 [tail_tail_rank],
// PTX: bar.sync 0;
// PTX-NEXT: ld.shared.s32 [[RANK:%r[0-9]+]], [tail_tail_rank];
// PTX-NEXT: setp.lt.s32 [[GONE:%p[0-9]+]], [[RANK]], 0;
// PTX-NEXT: @[[GONE]] exit;

mgpu.func @tail(%a: !mgpu.ptr<f32>, %b: !mgpu.ptr<f32>, %c: !mgpu.ptr<f32>) kernel attributes {resident_grid} {
  %t = mgpu.thread_id : index
  %blk = mgpu.block_id : index
  %c2 = mloop.constant 2 : index
  %c10 = mloop.constant 10 : index
  %i = mloop.mul %blk, %c2 : index
  %me = mloop.add %i, %t : index
  %tens = mloop.mul %blk, %c10 : index
  %vi = mloop.add %tens, %t : index
  %v = mloop.convert %vi : index to f32
  mgpu.store %v, %a[%me] : !mgpu.ptr<f32>
  %r, %n = mgpu.grid_tail {ctas = 2 : i64}
  %k2 = mloop.constant 2 : index
  %k4 = mloop.constant 4 : index
  %lo = mloop.mul %r, %k4 : index
  %j0 = mloop.add %lo, %t : index
  %j1 = mloop.add %j0, %k2 : index
  %x0 = mgpu.load %a[%j0] : !mgpu.ptr<f32>
  %x1 = mgpu.load %a[%j1] : !mgpu.ptr<f32>
  %s = mloop.add %x0, %x1 : f32
  %o0 = mloop.mul %r, %k2 : index
  %o = mloop.add %o0, %t : index
  mgpu.store %s, %b[%o] : !mgpu.ptr<f32>
  %nf = mloop.convert %n : index to f32
  mgpu.store %nf, %c[%o] : !mgpu.ptr<f32>
  mgpu.return
}

func.func @main() -> (!mloop.buffer<4xf32>, !mloop.buffer<4xf32>) {
  %c2 = mloop.constant 2 : index
  %c4 = mloop.constant 4 : index
  %bytes = mloop.constant 0 : index
  %a = mloop.alloc() : !mloop.buffer<8xf32>
  %b = mloop.alloc() : !mloop.buffer<4xf32>
  %c = mloop.alloc() : !mloop.buffer<4xf32>
  mgpu.launch @tail blocks(%c4) threads(%c2) shared(%bytes) args(%a, %b, %c) : !mloop.buffer<8xf32>, !mloop.buffer<4xf32>, !mloop.buffer<4xf32>
  return %b, %c : !mloop.buffer<4xf32>, !mloop.buffer<4xf32>
}
