// RUN: morf-opt %s | morf-opt | FileCheck %s
// RUN: morf-opt %s --print-op-generic | morf-opt | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (f32, f64, bf16, index, i1, i1) {
  // CHECK: mloop.constant 1.0 : f32
  %a = mloop.constant 1.0 : f32
  // CHECK: mloop.resident_programs {assumed = 132} : index
  %rp = mloop.resident_programs {assumed = 132} : index
  // CHECK: mloop.constant -2.5 : f64
  %b = mloop.constant -2.5 : f64
  // CHECK: mloop.constant 1.001358e-5 : bf16
  %c = mloop.constant 1.0e-05 : bf16
  // CHECK: mloop.constant 42 : index
  %d = mloop.constant 42 : index
  // CHECK: mloop.constant true : i1
  %e = mloop.constant true : i1
  // CHECK: mloop.constant false : i1
  %f = mloop.constant false : i1
  return %a, %b, %c, %d, %e, %f : f32, f64, bf16, index, i1, i1
}

// CHECK-LABEL: func.func @scalars
// CHECK-SAME: (%[[A:[a-z0-9]+]]: f32, %[[B:[a-z0-9]+]]: f32, %[[I:[a-z0-9]+]]: index, %[[H:[a-z0-9]+]]: bf16)
func.func @scalars(%a: f32, %b: f32, %i: index, %h: bf16) -> (f32, index, f32, f32) {
  // CHECK: %[[R0:.*]] = mloop.add %[[A]], %[[B]] : f32
  %0 = mloop.add %a, %b : f32
  // CHECK: %[[R1:.*]] = mloop.sub %[[R0]], %[[B]] : f32
  %1 = mloop.sub %0, %b : f32
  // CHECK: %[[R2:.*]] = mloop.mul %[[R1]], %[[A]] : f32
  %2 = mloop.mul %1, %a : f32
  // CHECK: %[[R3:.*]] = mloop.div %[[R2]], %[[B]] : f32
  %3 = mloop.div %2, %b : f32
  // CHECK: %[[R4:.*]] = mloop.max %[[R3]], %[[A]] : f32
  %4 = mloop.max %3, %a : f32
  // CHECK: %[[R5:.*]] = mloop.min %[[R4]], %[[B]] : f32
  %5 = mloop.min %4, %b : f32
  // CHECK: %[[R6:.*]] = mloop.pow %[[R5]], %[[A]] : f32
  %6 = mloop.pow %5, %a : f32
  // CHECK: mloop.neg %[[R6]] : f32
  %7 = mloop.neg %6 : f32
  // CHECK: mloop.exp
  %8 = mloop.exp %7 : f32
  // CHECK: mloop.log
  %9 = mloop.log %8 : f32
  // CHECK: mloop.sqrt
  %10 = mloop.sqrt %9 : f32
  // CHECK: mloop.rsqrt
  %11 = mloop.rsqrt %10 : f32
  // CHECK: mloop.tanh
  %12 = mloop.tanh %11 : f32
  // CHECK: %[[ABS:.*]] = mloop.abs {{.*}} : f32
  %13 = mloop.abs %12 : f32
  // CHECK: %[[J0:.*]] = mloop.add %[[I]], %[[I]] : index
  %j0 = mloop.add %i, %i : index
  // CHECK: %[[J1:.*]] = mloop.sub %[[J0]], %[[I]] : index
  %j1 = mloop.sub %j0, %i : index
  // CHECK: %[[J2:.*]] = mloop.mul %[[J1]], %[[I]] : index
  %j2 = mloop.mul %j1, %i : index
  // CHECK: %[[J3:.*]] = mloop.div %[[J2]], %[[I]] : index
  %j3 = mloop.div %j2, %i : index
  // CHECK: %[[J4:.*]] = mloop.rem %[[J3]], %[[I]] : index
  %j4 = mloop.rem %j3, %i : index
  // CHECK: %[[J5:.*]] = mloop.max %[[J4]], %[[I]] : index
  %j5 = mloop.max %j4, %i : index
  // CHECK: %[[J6:.*]] = mloop.min %[[J5]], %[[I]] : index
  %j6 = mloop.min %j5, %i : index
  // CHECK: %[[P:.*]] = mloop.cmp lt, %[[ABS]], %[[B]] : f32
  %p = mloop.cmp lt, %13, %b : f32
  // CHECK: mloop.cmp ge, %[[J6]], %[[I]] : index
  %q = mloop.cmp ge, %j6, %i : index
  // CHECK: %[[S:.*]] = mloop.select %[[P]], %[[ABS]], %[[A]] : f32
  %s = mloop.select %p, %13, %a : f32
  // CHECK: mloop.convert %[[H]] : bf16 to f32
  %f = mloop.convert %h : bf16 to f32
  // CHECK: mloop.convert %[[J6]] : index to f32
  %g = mloop.convert %j6 : index to f32
  return %s, %j6, %f, %g : f32, index, f32, f32
}

// CHECK-LABEL: func.func @buffers
// CHECK-SAME: (%[[X:[a-z0-9]+]]: !mloop.buffer<?x?xbf16>, %[[Z:[a-z0-9]+]]: !mloop.buffer<f32>)
func.func @buffers(%x: !mloop.buffer<?x?xbf16>, %z: !mloop.buffer<f32>) -> !mloop.buffer<?x4xf32> {
  // CHECK: %[[C0:.*]] = mloop.constant 0 : index
  %c0 = mloop.constant 0 : index
  // CHECK: %[[M:.*]] = mloop.dim %[[X]], 0 : !mloop.buffer<?x?xbf16>
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xbf16>
  // CHECK: mloop.dim %[[X]], 1 : !mloop.buffer<?x?xbf16>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xbf16>
  // CHECK: %[[W:.*]] = mloop.alloc(%[[M]]) : !mloop.buffer<?x4xf32>
  %w = mloop.alloc(%m) : !mloop.buffer<?x4xf32>
  // CHECK: %[[T:.*]] = mloop.alloc() : !mloop.buffer<2x3xf32>
  %t = mloop.alloc() : !mloop.buffer<2x3xf32>
  // CHECK: %[[K:.*]] = mloop.constant_buffer dense<[1.0, 2.0]> : !mloop.buffer<2xf32>
  %k = mloop.constant_buffer dense<[1.0, 2.0]> : !mloop.buffer<2xf32>
  // CHECK: mloop.constant_buffer dense<0.5> : !mloop.buffer<2x2xbf16>
  %k2 = mloop.constant_buffer dense<0.5> : !mloop.buffer<2x2xbf16>
  // CHECK: %[[V:.*]] = mloop.load %[[X]][%[[C0]], %[[C0]]] : !mloop.buffer<?x?xbf16>
  %v = mloop.load %x[%c0, %c0] : !mloop.buffer<?x?xbf16>
  // CHECK: mloop.store %[[V]], %[[X]][%[[C0]], %[[C0]]] : !mloop.buffer<?x?xbf16>
  mloop.store %v, %x[%c0, %c0] : !mloop.buffer<?x?xbf16>
  // CHECK: %[[E:.*]] = mloop.load %[[K]][%[[C0]]] : !mloop.buffer<2xf32>
  %e = mloop.load %k[%c0] : !mloop.buffer<2xf32>
  // CHECK: mloop.accumulate sum %[[E]], %[[W]][%[[C0]], %[[C0]]] : !mloop.buffer<?x4xf32>
  mloop.accumulate sum %e, %w[%c0, %c0] : !mloop.buffer<?x4xf32>
  // CHECK: mloop.accumulate max %[[E]], %[[W]][%[[C0]], %[[C0]]] : !mloop.buffer<?x4xf32>
  mloop.accumulate max %e, %w[%c0, %c0] : !mloop.buffer<?x4xf32>
  // CHECK: %[[Z0:.*]] = mloop.load %[[Z]][] : !mloop.buffer<f32>
  %z0 = mloop.load %z[] : !mloop.buffer<f32>
  // CHECK: mloop.store %[[Z0]], %[[Z]][] : !mloop.buffer<f32>
  mloop.store %z0, %z[] : !mloop.buffer<f32>
  // CHECK: mloop.fill %[[E]], %[[T]] : !mloop.buffer<2x3xf32>
  mloop.fill %e, %t : !mloop.buffer<2x3xf32>
  // CHECK: mloop.dealloc %[[T]] : !mloop.buffer<2x3xf32>
  mloop.dealloc %t : !mloop.buffer<2x3xf32>
  // CHECK: mloop.dealloc %[[K]] : !mloop.buffer<2xf32>
  mloop.dealloc %k : !mloop.buffer<2xf32>
  return %w : !mloop.buffer<?x4xf32>
}

// CHECK-LABEL: func.func @loops
func.func @loops(%x: !mloop.buffer<?x?xf32>, %w: !mloop.buffer<?xf32>) -> f32 {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  // CHECK: mloop.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
  // CHECK-NEXT: mloop.store %{{.*}}, %{{.*}}[%[[I]]] : !mloop.buffer<?xf32>
  // CHECK-NEXT: mloop.yield
  // CHECK-NEXT: }
  mloop.for %i = %c0 to %m step %c1 {
    mloop.store %zero, %w[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  // CHECK: %[[S:.*]] = mloop.for %[[I2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
  // CHECK-NEXT: %[[V:.*]] = mloop.load %{{.*}}[%[[I2]]] : !mloop.buffer<?xf32>
  // CHECK-NEXT: %[[NX:.*]] = mloop.add %[[ACC]], %[[V]] : f32
  // CHECK-NEXT: mloop.yield %[[NX]] : f32
  // CHECK-NEXT: }
  %s = mloop.for %i = %c0 to %m step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = mloop.load %w[%i] : !mloop.buffer<?xf32>
    %next = mloop.add %acc, %v : f32
    mloop.yield %next : f32
  }
  // CHECK: mloop.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, index) {
  // CHECK: mloop.yield %{{.*}}, %{{.*}} : f32, index
  %t:2 = mloop.for %i = %c0 to %m step %c1 iter_args(%a = %zero, %b = %c0) -> (f32, index) {
    mloop.yield %a, %i : f32, index
  }
  // CHECK: mloop.parallel (%[[PI:.*]], %[[PJ:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step (%{{.*}}, %{{.*}}) {
  // CHECK-NEXT: mloop.load %{{.*}}[%[[PI]], %[[PJ]]] : !mloop.buffer<?x?xf32>
  // CHECK-NEXT: mloop.accumulate sum %{{.*}}, %{{.*}}[%[[PJ]]] : !mloop.buffer<?xf32>
  // CHECK-NEXT: mloop.yield
  // CHECK-NEXT: }
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.accumulate sum %v, %w[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  // CHECK: %{{.*}} = mloop.reduce max (%[[RJ:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) init(%{{.*}}) : f32 {
  // CHECK-NEXT: %[[E:.*]] = mloop.load %{{.*}}[%[[RJ]]] : !mloop.buffer<?xf32>
  // CHECK-NEXT: mloop.yield %[[E]] : f32
  // CHECK-NEXT: }
  %r = mloop.reduce max (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
    %e = mloop.load %w[%j] : !mloop.buffer<?xf32>
    mloop.yield %e : f32
  }
  // CHECK: mloop.reduce sum (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step (%{{.*}}, %{{.*}}) init(%{{.*}}) : f32 {
  %r2 = mloop.reduce sum (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) init(%r) : f32 {
    %e = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield %e : f32
  } attributes {morf.note = "kept"}
  // CHECK: } attributes {morf.note = "kept"}
  return %r2 : f32
}
