// RUN: morf-opt %s --lower-tensor-to-loop | FileCheck %s

// A chain of three pointwise ops becomes one nest; %a is loaded once.
// CHECK-LABEL: func.func @chain(%a: !mloop.buffer<?x4xf32>, %b: !mloop.buffer<?x4xf32>) -> !mloop.buffer<?x4xf32>
// CHECK: %[[M:.*]] = mloop.dim %a, 0 : !mloop.buffer<?x4xf32>
// CHECK: %[[OUT:.*]] = mloop.alloc(%[[M]]) : !mloop.buffer<?x4xf32>
// CHECK: mloop.parallel (%[[I:.*]], %[[J:.*]]) = ({{.*}}) to (%[[M]], %{{.*}}) step
// CHECK-NEXT: %[[A:.*]] = mloop.load %a[%[[I]], %[[J]]]
// CHECK-NEXT: %[[B:.*]] = mloop.load %b[%[[I]], %[[J]]]
// CHECK-NEXT: %[[S:.*]] = mloop.add %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[E:.*]] = mloop.exp %[[S]] : f32
// CHECK-NEXT: %[[P:.*]] = mloop.mul %[[E]], %[[A]] : f32
// CHECK-NEXT: mloop.store %[[P]], %[[OUT]][%[[I]], %[[J]]]
// CHECK-NEXT: mloop.yield
// CHECK-NOT: mloop.parallel
// CHECK: return %[[OUT]] : !mloop.buffer<?x4xf32>
func.func @chain(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = mtensor.add %a, %b : tensor<?x4xf32>
  %1 = mtensor.exp %0 : tensor<?x4xf32>
  %2 = mtensor.mul %1, %a : tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}

// Broadcasts only rewrite indices: a static 1 reads index 0, a dynamic operand dim that
// may be 1 reads min(i, size - 1), and dims known equal read the index itself.
// CHECK-LABEL: func.func @bcast
// CHECK-DAG: %[[C0:.*]] = mloop.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = mloop.constant 1 : index
// CHECK-DAG: %[[D:.*]] = mloop.dim %c, 1 : !mloop.buffer<1x?xf32>
// CHECK-DAG: %[[LAST:.*]] = mloop.sub %[[D]], %[[C1]] : index
// CHECK: mloop.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK: mloop.load %a[%[[I]]] : !mloop.buffer<?xf32>
// CHECK: %[[K:.*]] = mloop.min %[[J]], %[[LAST]] : index
// CHECK: mloop.load %c[%[[C0]], %[[K]]] : !mloop.buffer<1x?xf32>
func.func @bcast(%a: tensor<?xf32>, %c: tensor<1x?xf32>, %n: index) -> tensor<?x?xf32> {
  %m = mtensor.dim %a, 0 : tensor<?xf32>
  %0 = mtensor.broadcast %a dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %1 = mtensor.broadcast %c dims [0, 1] sizes(%m, %n) : tensor<1x?xf32> -> tensor<?x?xf32>
  %2 = mtensor.add %0, %1 : tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// Splat constants are scalars at the function entry; dense ones are constant buffers.
// CHECK-LABEL: func.func @consts
// CHECK-DAG: %[[K:.*]] = mloop.constant_buffer dense<[1.0, 2.0, 3.0]> : !mloop.buffer<3xf32>
// CHECK-DAG: %[[H:.*]] = mloop.constant 0.5 : f32
// CHECK: mloop.parallel (%[[I:.*]]) =
// CHECK: %[[X:.*]] = mloop.load %a[%[[I]]]
// CHECK: %[[Y:.*]] = mloop.load %[[K]][%[[I]]]
// CHECK: %[[P:.*]] = mloop.mul %[[X]], %[[Y]] : f32
// CHECK: mloop.add %[[P]], %[[H]] : f32
func.func @consts(%a: tensor<3xf32>) -> tensor<3xf32> {
  %k = mtensor.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %h = mtensor.constant dense<0.5> : tensor<3xf32>
  %0 = mtensor.mul %a, %k : tensor<3xf32>
  %1 = mtensor.add %0, %h : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// Returning an argument returns its buffer; no nest.
// CHECK-LABEL: func.func @identity(%x: !mloop.buffer<?xbf16> {morf.dims = ["N"]}) -> !mloop.buffer<?xbf16>
// CHECK-NEXT: return %x : !mloop.buffer<?xbf16>
func.func @identity(%x: tensor<?xbf16> {morf.dims = ["N"]}) -> tensor<?xbf16> {
  return %x : tensor<?xbf16>
}
