// mgpu.work_loop on the CPU simulator: 3 blocks of 2 threads over 7 iterations. Iteration i
// writes 100 + i at 2 i + t (each thread its element) and adds 1 to a count at i: every
// iteration runs once, by all of a block's threads, whichever block takes it (the simulator
// runs block 0 first, which takes every ticket; on the GPU blocks take them as they finish).
// The iterations in shared memory from one to the next: each thread reads back, at the next
// iteration, the value it wrote at the last (the ticket's barriers order them).
// REQUIRES: numpy
//
// RUN: rm -rf %t && morf-run %s --device sim --output-dir %t > /dev/null
// RUN: python3 -c "import numpy as n; print(n.load('%t/result0.npy').tolist()); print(n.load('%t/result1.npy').tolist())" | FileCheck %s
// The printed form reads back the same:
// RUN: morf-opt %s | morf-opt | FileCheck %s --check-prefix=IR
// A work loop that only some blocks run would leave the GPU's counter short of its reset: a
// located error (here only block 0 runs it):
// RUN: sed -e 's/^  %%run = mloop.constant true : i1/  %%run = mloop.cmp eq, %%blk, %%zero : index/' %s > %t.part.mlir
// RUN: not morf-run %t.part.mlir --device sim --output-dir %t/part 2>&1 | FileCheck %s --check-prefix=PART
// PART: error: 'mgpu.work_loop' op took 5 tickets in this launch, not 7 (one per iteration): some blocks of the launch did not run it, and on a GPU its counter would not be back at 0 for the next launch
// The PTX loop: the iteration starts at %ctaid.x; thread 0 takes the next iteration's ticket
// before the body (a predicated atomic), hands it over shared memory between two barriers
// after it, and resets the counter at the launch's last ticket.
// RUN: morf-opt %s --emit=ptx | FileCheck %s --check-prefix=PTX

// CHECK: [100.0, 100.0, 101.0, 101.0, 102.0, 102.0, 103.0, 103.0, 104.0, 104.0, 105.0, 105.0, 106.0, 106.0]
// CHECK-NEXT: [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]

// IR: mgpu.work_loop %{{.*}} to %{{.*}} {
// IR: mgpu.yield
// IR-NEXT: }

// PTX: .global .align 8 .u64 iters_work_count;
// PTX-LABEL: .entry iters(
// PTX: .shared .align 8 .u64 iters_work_ticket;
// PTX: @!{{%p[0-9]+}} bra {{\$L[0-9]+}};
// PTX-NEXT: mov.u32 [[B:%r[0-9]+]], %ctaid.x;
// PTX-NEXT: cvt.u64.u32 [[I:%rd[0-9]+]], [[B]];
// PTX-NEXT: [[HEAD:\$L[0-9]+]]:
// PTX-NEXT: setp.ge.s64 [[P:%p[0-9]+]], [[I]], {{%rd[0-9]+}};
// PTX-NEXT: @[[P]] bra [[EXIT:\$L[0-9]+]];
// PTX-NEXT: mov.u32 {{%r[0-9]+}}, %tid.x;
// PTX-NEXT: setp.ne.u32 [[OTHER:%p[0-9]+]], {{%r[0-9]+}}, 0;
// PTX-NEXT: mov.u64 [[A:%rd[0-9]+]], iters_work_count;
// PTX-NEXT: @![[OTHER]] atom.add.relaxed.gpu.global.u64 [[T:%rd[0-9]+]], {{\[}}[[A]]], 1;
// PTX: st.global.f32
// PTX: setp.ne.u32 [[OTHER2:%p[0-9]+]], {{%r[0-9]+}}, 0;
// PTX-NEXT: @[[OTHER2]] bra [[TAKEN:\$L[0-9]+]];
// PTX-NEXT: st.shared.u64 [iters_work_ticket], [[T]];
// PTX-NEXT: sub.s64 [[LAST:%rd[0-9]+]], {{%rd[0-9]+}}, 1;
// PTX-NEXT: setp.ne.s64 [[NL:%p[0-9]+]], [[T]], [[LAST]];
// PTX-NEXT: @[[NL]] bra [[TAKEN]];
// PTX-NEXT: st.relaxed.gpu.global.u64 {{\[}}[[A]]], 0;
// PTX-NEXT: [[TAKEN]]:
// PTX-NEXT: bar.sync 0;
// PTX-NEXT: ld.shared.u64 [[T2:%rd[0-9]+]], [iters_work_ticket];
// PTX-NEXT: bar.sync 0;
// PTX-NEXT: mov.u32 [[N:%r[0-9]+]], %nctaid.x;
// PTX-NEXT: cvt.u64.u32 [[G:%rd[0-9]+]], [[N]];
// PTX-NEXT: add.s64 [[I]], [[G]], [[T2]];
// PTX-NEXT: bra [[HEAD]];
// PTX-NEXT: [[EXIT]]:

mgpu.func @iters(%a: !mgpu.ptr<f32>, %c: !mgpu.ptr<f32>) kernel {
  %t = mgpu.thread_id : index
  %blk = mgpu.block_id : index
  %zero = mloop.constant 0 : index
  %n = mloop.constant 7 : index
  %c2 = mloop.constant 2 : index
  %one = mloop.constant 1.0 : f32
  %s = mgpu.shared_alloc {size = 2} : !mgpu.ptr<f32, 3>
  %init = mloop.constant 100.0 : f32
  mgpu.store %init, %s[%t] : !mgpu.ptr<f32, 3>
  %run = mloop.constant true : i1
  mgpu.if %run {
    mgpu.work_loop %i to %n {
      %base = mgpu.load %s[%t] : !mgpu.ptr<f32, 3>
      %fi = mloop.convert %i : index to f32
      %v = mloop.add %base, %fi : f32
      %i2 = mloop.mul %i, %c2 : index
      %at = mloop.add %i2, %t : index
      mgpu.store %v, %a[%at] : !mgpu.ptr<f32>
      mgpu.store %base, %s[%t] : !mgpu.ptr<f32, 3>
      %first = mloop.cmp eq, %t, %zero : index
      mgpu.if %first {
        %k = mgpu.load %c[%i] : !mgpu.ptr<f32>
        %k1 = mloop.add %k, %one : f32
        mgpu.store %k1, %c[%i] : !mgpu.ptr<f32>
        mgpu.yield
      }
      mgpu.yield
    }
    mgpu.yield
  }
  mgpu.return
}

func.func @main() -> (!mloop.buffer<14xf32>, !mloop.buffer<7xf32>) {
  %c2 = mloop.constant 2 : index
  %c3 = mloop.constant 3 : index
  %bytes = mloop.constant 0 : index
  %zero = mloop.constant 0.0 : f32
  %a = mloop.alloc() : !mloop.buffer<14xf32>
  %c = mloop.alloc() : !mloop.buffer<7xf32>
  mloop.fill %zero, %c : !mloop.buffer<7xf32>
  mgpu.launch @iters blocks(%c3) threads(%c2) shared(%bytes) args(%a, %c) : !mloop.buffer<14xf32>, !mloop.buffer<7xf32>
  return %a, %c : !mloop.buffer<14xf32>, !mloop.buffer<7xf32>
}
