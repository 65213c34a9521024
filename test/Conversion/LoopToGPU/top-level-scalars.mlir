// lower-loop-to-gpu on top-level scalar code: a top-level `mloop.for` with iter_args runs as
// a one-thread kernel together with the ops that consume its result; a scalar a kernel
// computes that a later kernel needs travels through a rank-0 spill buffer (stored by the
// producer, loaded in the consumer's prologue); a fill with such a value becomes a kernel;
// a float argument of the function is a kernel parameter. Values the host would have to read
// (a returned scalar) and index values computed in kernels are rejected with a location.
// (These once stopped the pass with "erasing 'mloop.for' whose result still has uses".)
// Results on the simulator are checked against the interpreter by
// passes/tests/loop_to_gpu_corpus.rs (every lit input, both pipelines).
// RUN: not morf-opt %s --split-input-file --pipeline=gpu 2>%t.err | FileCheck %s
// RUN: FileCheck --check-prefix=ERR %s < %t.err
// RUN: not morf-opt %s --split-input-file --pipeline=gpu-unfused 2>&1 >/dev/null | FileCheck --check-prefix=ERR %s

// CHECK-LABEL: func.func @for_iter_args
// CHECK:       mgpu.launch @for_iter_args_k0 blocks(%{{.*}}) threads(%{{.*}}) shared(%{{.*}}) args(%m, %x, %{{.*}}, %s)
// CHECK-NEXT:  func.return %s
// CHECK:       mgpu.func @for_iter_args_k0({{.*}}%[[S:arg[0-9]+]]: !mgpu.ptr<f32>) kernel attributes {{{.*}}morf.schedule = "Sequential
// CHECK:       mgpu.if
// CHECK-NEXT:    %[[R:.*]] = mloop.for {{.*}} iter_args({{.*}}) -> (f32) {
// CHECK:         mloop.yield %{{.*}} : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    mgpu.store %[[R]], %[[S]][%{{.*}}] : !mgpu.ptr<f32>
func.func @for_iter_args(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> !mloop.buffer<f32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %zero = mloop.constant 0.0 : f32
  %s = mloop.alloc() : !mloop.buffer<f32>
  %r = mloop.for %i = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = mloop.load %x[%i, %c0] : !mloop.buffer<?x?xf32>
    %a = mloop.add %acc, %v : f32
    mloop.yield %a : f32
  }
  mloop.store %r, %s[] : !mloop.buffer<f32>
  return %s : !mloop.buffer<f32>
}


// -----

// CHECK-LABEL: func.func @scalar_between
// CHECK:       mgpu.launch @scalar_between_k0
// CHECK:       %[[FIRST:.*]] = mloop.alloc() : !mloop.buffer<f32>
// CHECK-NEXT:  %[[TWICE:.*]] = mloop.alloc() : !mloop.buffer<f32>
// CHECK:       mgpu.launch @scalar_between_k1 {{.*}} args(%t, %[[FIRST]], %[[TWICE]])
// CHECK:       mgpu.launch @scalar_between_k2 {{.*}} args(%{{.*}}, %[[TWICE]], %u)
// CHECK:       mgpu.launch @scalar_between_k3 {{.*}} args(%n, %t, %[[FIRST]], %u)
// CHECK:       mloop.dealloc %[[FIRST]]
// CHECK-NEXT:  mloop.dealloc %[[TWICE]]
// CHECK-NEXT:  func.return %u
// CHECK:       mgpu.func @scalar_between_k1(%[[T:arg0]]: !mgpu.ptr<f32>, %[[P1:arg1]]: !mgpu.ptr<f32>, %[[P2:arg2]]: !mgpu.ptr<f32>)
// CHECK:         %[[V:.*]] = mgpu.load %[[T]][%{{.*}}] {nc}
// CHECK-NEXT:    %[[V2:.*]] = mloop.add %[[V]], %[[V]] : f32
// CHECK-NEXT:    mgpu.store %[[V]], %[[P1]][%{{.*}}]
// CHECK-NEXT:    mgpu.store %[[V2]], %[[P2]][%{{.*}}]
// The fill of %u with the kernel-computed %twice: a thread per element.
// CHECK:       mgpu.func @scalar_between_k2(%arg0: index, %[[W:arg1]]: !mgpu.ptr<f32>, %[[U:arg2]]: !mgpu.ptr<f32>) kernel attributes {{{.*}}"ThreadPerPoint
// CHECK:         %[[X:.*]] = mgpu.load %[[W]][%{{.*}}] : !mgpu.ptr<f32>
// CHECK:         mgpu.store %[[X]], %[[U]][%{{.*}}]
// CHECK:       mgpu.func @scalar_between_k3(%arg0: index, %arg1: !mgpu.ptr<f32>, %[[F:arg2]]: !mgpu.ptr<f32>, %arg3: !mgpu.ptr<f32>)
// CHECK:         %[[D:.*]] = mgpu.load %[[F]][%{{.*}}] : !mgpu.ptr<f32>
// CHECK:         mloop.div %{{.*}}, %[[D]] : f32
func.func @scalar_between(%x: !mloop.buffer<?xf32> {morf.dims = ["N"]}) -> !mloop.buffer<?xf32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %n = mloop.dim %x, 0 : !mloop.buffer<?xf32>
  %t = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
    %e = mloop.exp %v : f32
    mloop.store %e, %t[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  %first = mloop.load %t[%c0] : !mloop.buffer<?xf32>
  %twice = mloop.add %first, %first : f32
  %u = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.fill %twice, %u : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = mloop.load %t[%i] : !mloop.buffer<?xf32>
    %d = mloop.div %v, %first : f32
    mloop.accumulate sum %d, %u[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  mloop.dealloc %t : !mloop.buffer<?xf32>
  return %u : !mloop.buffer<?xf32>
}


// -----

// CHECK-LABEL: func.func @float_arg
// CHECK:       mgpu.launch @float_arg_k0 {{.*}} args(%n, %a, %x) : index, f32, !mloop.buffer<?xf32>
// CHECK:       mgpu.func @float_arg_k0(%arg0: index, %[[A:arg1]]: f32, %[[X:arg2]]: !mgpu.ptr<f32>)
// CHECK:         mgpu.store %[[A]], %[[X]][%{{.*}}]
func.func @float_arg(%x: !mloop.buffer<?xf32> {morf.dims = ["N"]}, %a: f32) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %n = mloop.dim %x, 0 : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%n) step (%c1) {
    mloop.store %a, %x[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return
}


// -----

// ERR: top-level-scalars.mlir:[[@LINE+4]]:3: error: 'func.return' op uses on the host a value that a kernel computes, which is not supported
func.func @returns_scalar(%x: !mloop.buffer<?xf32>) -> f32 {
  %c0 = mloop.constant 0 : index
  %v = mloop.load %x[%c0] : !mloop.buffer<?xf32>
  return %v : f32
}


// -----

// ERR: top-level-scalars.mlir:[[@LINE+5]]:8: error: 'mloop.for' op computes a value of type 'index' in a kernel that later code needs, which is not supported (only float and i1 values can be passed between kernels)
func.func @index_result(%x: !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %n = mloop.dim %x, 0 : !mloop.buffer<?xf32>
  %k = mloop.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %a = mloop.add %acc, %c1 : index
    mloop.yield %a : index
  }
  mloop.parallel (%i) = (%c0) to (%k) step (%c1) {
    %z = mloop.constant 0.0 : f32
    mloop.store %z, %x[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return
}
