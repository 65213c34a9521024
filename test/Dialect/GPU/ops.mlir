// RUN: morf-opt %s | morf-opt | FileCheck %s
// RUN: morf-opt %s --print-op-generic | morf-opt | FileCheck %s

// CHECK-LABEL: mgpu.func @ids(%{{.*}}: !mgpu.ptr<f32>, %{{.*}}: index) kernel attributes {max_threads = 256} {
mgpu.func @ids(%p: !mgpu.ptr<f32>, %n: index) kernel attributes {max_threads = 256} {
  // CHECK: mgpu.thread_id : index
  %t = mgpu.thread_id : index
  // CHECK: mgpu.block_id : index
  %b = mgpu.block_id : index
  // CHECK: mgpu.block_dim : index
  %bd = mgpu.block_dim : index
  // CHECK: mgpu.grid_dim : index
  %gd = mgpu.grid_dim : index
  // CHECK: mgpu.lane_id : index
  %l = mgpu.lane_id : index
  // CHECK: mgpu.warp_id : index
  %w = mgpu.warp_id : index
  // CHECK: mgpu.return
  mgpu.return
}

// CHECK-LABEL: mgpu.func @memory
mgpu.func @memory(%x: !mgpu.ptr<bf16>, %y: !mgpu.ptr<f32>, %i: index) kernel {
  // CHECK: %[[V:.*]] = mgpu.load %{{.*}}[%{{.*}}] : !mgpu.ptr<bf16>
  %v = mgpu.load %x[%i] : !mgpu.ptr<bf16>
  // CHECK: mgpu.load %{{.*}}[%{{.*}}] {nc} : !mgpu.ptr<bf16>
  %v2 = mgpu.load %x[%i] {nc} : !mgpu.ptr<bf16>
  // CHECK: mgpu.load %{{.*}}[%{{.*}}] {nc, stream} : !mgpu.ptr<bf16>
  %v3 = mgpu.load %x[%i] {nc, stream} : !mgpu.ptr<bf16>
  // CHECK: mgpu.load_vec %{{.*}}[%{{.*}}] {stream} : !mgpu.ptr<f32> -> f32, f32
  %e, %f = mgpu.load_vec %y[%i] {stream} : !mgpu.ptr<f32> -> f32, f32
  // CHECK: mgpu.store %[[V]], %{{.*}}[%{{.*}}] : !mgpu.ptr<bf16>
  mgpu.store %v, %x[%i] : !mgpu.ptr<bf16>
  // CHECK: mgpu.load_vec %{{.*}}[%{{.*}}] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
  %a, %b, %c, %d = mgpu.load_vec %y[%i] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
  // CHECK: mgpu.store_vec %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] : !mgpu.ptr<bf16>
  mgpu.store_vec %v, %v2, %x[%i] : !mgpu.ptr<bf16>
  // CHECK: mgpu.shared_alloc {size = 256} : !mgpu.ptr<f32, 3>
  %s = mgpu.shared_alloc {size = 256 : i64} : !mgpu.ptr<f32, 3>
  // CHECK: mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
  %ds = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
  // CHECK: mgpu.store %{{.*}}, %{{.*}}[%{{.*}}] : !mgpu.ptr<f32, 3>
  mgpu.store %a, %s[%i] : !mgpu.ptr<f32, 3>
  // CHECK: mgpu.barrier
  mgpu.barrier
  // CHECK: mgpu.warp_barrier
  mgpu.warp_barrier
  mgpu.return
}

// CHECK-LABEL: mgpu.func @warp
mgpu.func @warp(%v: f32, %off: index) kernel {
  // CHECK: mgpu.shuffle xor %{{.*}}, %{{.*}} : f32
  %r0 = mgpu.shuffle xor %v, %off : f32
  // CHECK: mgpu.shuffle down
  %r1 = mgpu.shuffle down %v, %off : f32
  // CHECK: mgpu.shuffle up
  %r2 = mgpu.shuffle up %v, %off : f32
  // CHECK: mgpu.shuffle idx
  %r3 = mgpu.shuffle idx %v, %off : f32
  // CHECK: mgpu.warp_reduce sum %{{.*}} : f32
  %s = mgpu.warp_reduce sum %v : f32
  // CHECK: mgpu.warp_reduce max
  %m = mgpu.warp_reduce max %v : f32
  // CHECK: mgpu.warp_reduce min
  %n = mgpu.warp_reduce min %off : index
  // CHECK: mgpu.warp_reduce sum %{{.*}} {width = 8} : f32
  %g = mgpu.warp_reduce sum %v {width = 8} : f32
  mgpu.return
}

// CHECK-LABEL: mgpu.func @atomics
mgpu.func @atomics(%p: !mgpu.ptr<f32>, %pd: !mgpu.ptr<f64>, %pi: !mgpu.ptr<index>, %v: f32, %vd: f64, %i: index) kernel {
  // CHECK: %{{.*}} = mgpu.atomic_rmw add %{{.*}}, %{{.*}}[%{{.*}}] : !mgpu.ptr<f32>
  %o0 = mgpu.atomic_rmw add %v, %p[%i] : !mgpu.ptr<f32>
  // CHECK: mgpu.atomic_rmw max %{{.*}}, %{{.*}}[%{{.*}}] : !mgpu.ptr<f32>
  %o1 = mgpu.atomic_rmw max %v, %p[%i] : !mgpu.ptr<f32>
  // CHECK: mgpu.atomic_rmw min %{{.*}}, %{{.*}}[%{{.*}}] : !mgpu.ptr<f64>
  %o2 = mgpu.atomic_rmw min %vd, %pd[%i] : !mgpu.ptr<f64>
  // CHECK: mgpu.atomic_rmw add %{{.*}}, %{{.*}}[%{{.*}}] : !mgpu.ptr<index>
  %o3 = mgpu.atomic_rmw add %i, %pi[%i] : !mgpu.ptr<index>
  // The old value feeds other ops like any value.
  // CHECK: mloop.add %{{.*}}, %{{.*}} : f32
  %s = mloop.add %o0, %o1 : f32
  mgpu.store %s, %p[%i] : !mgpu.ptr<f32>
  mgpu.return
}

// CHECK-LABEL: mgpu.func @copy_async
mgpu.func @copy_async(%g: !mgpu.ptr<bf16>, %gf: !mgpu.ptr<f32>, %i: index, %j: index) kernel {
  %s = mgpu.dynamic_shared : !mgpu.ptr<bf16, 3>
  %sf = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
  // CHECK: mgpu.copy_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 8} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
  mgpu.copy_async %s[%i], %g[%j] {width = 8} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
  // CHECK: mgpu.copy_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 1} : !mgpu.ptr<f32, 3>, !mgpu.ptr<f32>
  mgpu.copy_async %sf[%i], %gf[%j] {width = 1} : !mgpu.ptr<f32, 3>, !mgpu.ptr<f32>
  // CHECK: mgpu.copy_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {stream, width = 8} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
  mgpu.copy_async %s[%i], %g[%j] {stream, width = 8} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
  // CHECK: mgpu.copy_async_commit
  mgpu.copy_async_commit
  // CHECK: mgpu.copy_async_wait {pending = 1}
  mgpu.copy_async_wait {pending = 1 : i64}
  mgpu.return
}

// CHECK-LABEL: mgpu.func @control
mgpu.func @control(%p: !mgpu.ptr<f32>, %n: index) kernel {
  %t = mgpu.thread_id : index
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %cond = mloop.cmp lt, %t, %n : index
  // CHECK: %{{.*}} = mgpu.if %{{.*}} -> (f32) {
  // CHECK: mgpu.yield %{{.*}} : f32
  // CHECK: } else {
  %r = mgpu.if %cond -> (f32) {
    %v = mgpu.load %p[%t] : !mgpu.ptr<f32>
    mgpu.yield %v : f32
  } else {
    %z = mloop.constant 0.0 : f32
    mgpu.yield %z : f32
  }
  // CHECK: mgpu.if %{{.*}} {
  // CHECK-NEXT: mgpu.store
  // CHECK-NEXT: mgpu.yield
  // CHECK-NEXT: }
  mgpu.if %cond {
    mgpu.store %r, %p[%t] : !mgpu.ptr<f32>
    mgpu.yield
  }
  // CHECK: mloop.for
  %s = mloop.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> (f32) {
    %v = mgpu.load %p[%i] : !mgpu.ptr<f32>
    %a = mloop.add %acc, %v : f32
    mloop.yield %a : f32
  }
  mgpu.return
}

// CHECK-LABEL: mgpu.func @device(%{{.*}}: f32) {
mgpu.func @device(%v: f32) {
  mgpu.return
}

// CHECK-LABEL: func.func @host
func.func @host(%x: !mloop.buffer<?x?xbf16>, %y: !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %g = mloop.dim %x, 0 : !mloop.buffer<?x?xbf16>
  %t = mloop.constant 128 : index
  %s = mloop.constant 0 : index
  // CHECK: mgpu.launch @memory blocks(%{{.*}}) threads(%{{.*}}) shared(%{{.*}}) args(%{{.*}}, %{{.*}}, %{{.*}}) : !mloop.buffer<?x?xbf16>, !mloop.buffer<?xf32>, index
  mgpu.launch @memory blocks(%g) threads(%t) shared(%s) args(%x, %y, %c1) : !mloop.buffer<?x?xbf16>, !mloop.buffer<?xf32>, index
  // CHECK: mgpu.launch @ids blocks(%{{.*}}) threads(%{{.*}}) shared(%{{.*}}) args(%{{.*}}, %{{.*}}) : !mloop.buffer<?xf32>, index
  mgpu.launch @ids blocks(%c1) threads(%t) shared(%s) args(%y, %c0) : !mloop.buffer<?xf32>, index
  // CHECK: %{{.*}} = mgpu.resident_blocks @memory threads(%{{.*}}) shared(%{{.*}})
  %r = mgpu.resident_blocks @memory threads(%t) shared(%s)
  return
}

// A kernel launched in clusters of 2 CTAs, with a store into the other CTA's shared memory
// between the cluster barrier's arrivals and waits.
// CHECK-LABEL: mgpu.func @cluster(%{{.*}}: f32) kernel attributes {cluster = 2}
mgpu.func @cluster(%v: f32) kernel attributes {cluster = 2} {
  %s = mgpu.shared_alloc {size = 2} : !mgpu.ptr<f32, 3>
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  // CHECK: mgpu.cluster_arrive {relaxed}
  mgpu.cluster_arrive {relaxed}
  // CHECK: mgpu.cluster_wait
  mgpu.cluster_wait
  // CHECK: mgpu.cluster_store %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}} : !mgpu.ptr<f32, 3>
  mgpu.cluster_store %v, %s[%c0], %c1 : !mgpu.ptr<f32, 3>
  // CHECK: mgpu.cluster_arrive{{$}}
  mgpu.cluster_arrive
  mgpu.cluster_wait
  mgpu.return
}
