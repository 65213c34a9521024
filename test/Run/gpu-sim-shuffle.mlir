// Shuffles on the CPU simulator, in one block of 72 threads: two full warps and a
// partial one of 8 threads. Each thread shuffles its own id; a source lane outside the
// warp or beyond the block gives the thread its own value. The shuffled values pass
// through dynamic shared memory (4 floats per thread) before they are stored.
// REQUIRES: numpy
//
// RUN: morf-run %s --device sim --output-dir %t | FileCheck %s
// RUN: python3 %S/Inputs/gpu_ref.py shuffle %t | FileCheck --check-prefix=OK %s

// CHECK:      result0: !mloop.buffer<72xf32> [72] -> {{.*}}result0.npy
// CHECK:      result4: !mloop.buffer<72xf32> [72] -> {{.*}}result4.npy
// OK: shuffle: ok

mgpu.func @shuffles(%ids: !mgpu.ptr<f32>, %xo: !mgpu.ptr<f32>, %dn: !mgpu.ptr<f32>, %up: !mgpu.ptr<f32>, %ix: !mgpu.ptr<f32>) kernel {
  %t = mgpu.thread_id : index
  %c1 = mloop.constant 1 : index
  %c2 = mloop.constant 2 : index
  %c3 = mloop.constant 3 : index
  %c4 = mloop.constant 4 : index
  %c5 = mloop.constant 5 : index
  %v = mloop.convert %t : index to f32
  %a = mgpu.shuffle xor %v, %c1 : f32
  %b = mgpu.shuffle down %v, %c1 : f32
  %c = mgpu.shuffle up %v, %c3 : f32
  %d = mgpu.shuffle idx %v, %c5 : f32
  %sh = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
  %base = mloop.mul %t, %c4 : index
  mgpu.store_vec %a, %b, %c, %d, %sh[%base] : !mgpu.ptr<f32, 3>
  mgpu.barrier
  %a2, %b2, %c2_, %d2 = mgpu.load_vec %sh[%base] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
  mgpu.store %v, %ids[%t] : !mgpu.ptr<f32>
  mgpu.store %a2, %xo[%t] : !mgpu.ptr<f32>
  mgpu.store %b2, %dn[%t] : !mgpu.ptr<f32>
  mgpu.store %c2_, %up[%t] : !mgpu.ptr<f32>
  mgpu.store %d2, %ix[%t] : !mgpu.ptr<f32>
  mgpu.return
}

func.func @main() -> (!mloop.buffer<72xf32>, !mloop.buffer<72xf32>, !mloop.buffer<72xf32>, !mloop.buffer<72xf32>, !mloop.buffer<72xf32>) {
  %c1 = mloop.constant 1 : index
  %c72 = mloop.constant 72 : index
  %bytes = mloop.constant 1152 : index
  %ids = mloop.alloc() : !mloop.buffer<72xf32>
  %xo = mloop.alloc() : !mloop.buffer<72xf32>
  %dn = mloop.alloc() : !mloop.buffer<72xf32>
  %up = mloop.alloc() : !mloop.buffer<72xf32>
  %ix = mloop.alloc() : !mloop.buffer<72xf32>
  mgpu.launch @shuffles blocks(%c1) threads(%c72) shared(%bytes) args(%ids, %xo, %dn, %up, %ix) : !mloop.buffer<72xf32>, !mloop.buffer<72xf32>, !mloop.buffer<72xf32>, !mloop.buffer<72xf32>, !mloop.buffer<72xf32>
  return %ids, %xo, %dn, %up, %ix : !mloop.buffer<72xf32>, !mloop.buffer<72xf32>, !mloop.buffer<72xf32>, !mloop.buffer<72xf32>, !mloop.buffer<72xf32>
}
