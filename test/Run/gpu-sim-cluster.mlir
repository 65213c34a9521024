// A kernel launched in clusters of 2 CTAs on the CPU simulator: 4 blocks of 40 threads (a
// full warp and a partial one each). Thread t of a block stores 100 * block + t into slot
// [rank * 40 + t] of the other block of its cluster (`mgpu.cluster_store`), then, after the
// cluster barrier, reads its own slot of the other rank and stores it: each block sees its
// peer's values. A warp reduction stays within its block: the warp sums of the partial warp
// count 8 lanes of its own block only.
// REQUIRES: numpy
//
// RUN: rm -rf %t && morf-run %s --device sim --output-dir %t > /dev/null
// RUN: python3 -c "import numpy as n; a = n.load('%t/result0.npy'); print(a[::8].tolist()); print(n.load('%t/result1.npy')[::8].tolist())" | FileCheck %s
// CHECK: [100.0, 108.0, 116.0, 124.0, 132.0, 0.0, 8.0, 16.0, 24.0, 32.0, 300.0, 308.0, 316.0, 324.0, 332.0, 200.0, 208.0, 216.0, 224.0, 232.0]
// Warp sums: lanes 0..31 of block b sum to 3200 b + 496, lanes 32..39 to 800 b + 284.
// CHECK: [496.0, 496.0, 496.0, 496.0, 284.0, 3696.0, 3696.0, 3696.0, 3696.0, 1084.0, 6896.0, 6896.0, 6896.0, 6896.0, 1884.0, 10096.0, 10096.0, 10096.0, 10096.0, 2684.0]
//
// A grid that is not a multiple of the cluster is refused:
// RUN: sed -e 's/blocks(%%c4)/blocks(%%c3)/' %s > %t.odd.mlir
// RUN: not morf-run %t.odd.mlir --device sim --output-dir %t 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: error: 'mgpu.launch' op blocks must be a multiple of '@exchange''s cluster of 2 CTAs, got 3
//
// In PTX the cluster size is the kernel's own; the store maps the address to the peer's.
// RUN: morf-opt %s --emit=ptx | FileCheck %s --check-prefix=PTX
// PTX:      .maxntid 40, 1, 1
// PTX-NEXT: .reqnctapercluster 2, 1, 1
// PTX:      barrier.cluster.arrive.relaxed.aligned;
// PTX:      barrier.cluster.wait.aligned;
// PTX:      cvt.u32.u64 [[R:%r[0-9]+]], %rd{{[0-9]+}};
// PTX-NEXT: mapa.shared::cluster.u64 [[A:%rd[0-9]+]], %rd{{[0-9]+}}, [[R]];
// PTX-NEXT: st.shared::cluster.f32 {{\[}}[[A]]{{\]}}, %f{{[0-9]+}};
// PTX:      barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;

mgpu.func @exchange(%out: !mgpu.ptr<f32>, %sums: !mgpu.ptr<f32>) kernel attributes {max_threads = 40, cluster = 2} {
  %t = mgpu.thread_id : index
  %b = mgpu.block_id : index
  %c1 = mloop.constant 1 : index
  %c2 = mloop.constant 2 : index
  %c40 = mloop.constant 40 : index
  %c100 = mloop.constant 100 : index
  %s = mgpu.shared_alloc {size = 80} : !mgpu.ptr<f32, 3>
  // Every CTA of the cluster has started before any writes another's shared memory.
  mgpu.cluster_arrive {relaxed}
  mgpu.cluster_wait
  %rank = mloop.rem %b, %c2 : index
  %peer = mloop.sub %c1, %rank : index
  %hb = mloop.mul %b, %c100 : index
  %vi = mloop.add %hb, %t : index
  %v = mloop.convert %vi : index to f32
  %r40 = mloop.mul %rank, %c40 : index
  %slot = mloop.add %r40, %t : index
  mgpu.cluster_store %v, %s[%slot], %peer : !mgpu.ptr<f32, 3>
  mgpu.cluster_arrive
  mgpu.cluster_wait
  %p40 = mloop.mul %peer, %c40 : index
  %mine = mloop.add %p40, %t : index
  %got = mgpu.load %s[%mine] : !mgpu.ptr<f32, 3>
  %b40 = mloop.mul %b, %c40 : index
  %o = mloop.add %b40, %t : index
  mgpu.store %got, %out[%o] : !mgpu.ptr<f32>
  %ws = mgpu.warp_reduce sum %v : f32
  mgpu.store %ws, %sums[%o] : !mgpu.ptr<f32>
  mgpu.return
}

func.func @main() -> (!mloop.buffer<160xf32>, !mloop.buffer<160xf32>) {
  %c3 = mloop.constant 3 : index
  %c4 = mloop.constant 4 : index
  %c40 = mloop.constant 40 : index
  %bytes = mloop.constant 0 : index
  %out = mloop.alloc() : !mloop.buffer<160xf32>
  %sums = mloop.alloc() : !mloop.buffer<160xf32>
  mgpu.launch @exchange blocks(%c4) threads(%c40) shared(%bytes) args(%out, %sums) : !mloop.buffer<160xf32>, !mloop.buffer<160xf32>
  return %out, %sums : !mloop.buffer<160xf32>, !mloop.buffer<160xf32>
}
