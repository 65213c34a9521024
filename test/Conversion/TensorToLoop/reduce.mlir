// RUN: morf-opt %s --lower-tensor-to-loop | FileCheck %s
// RUN: morf-opt %s --lower-tensor-to-loop=accumulator-type=f64 | FileCheck --check-prefix=F64 %s

// Each kind starts from its identity and accumulates in f32; the result is converted back.
// CHECK-LABEL: func.func @kinds
// CHECK-DAG: %[[NINF:.*]] = mloop.constant 0xFF800000 : f32
// CHECK-DAG: %[[ONE:.*]] = mloop.constant 1.0 : f32
// CHECK-DAG: %[[INF:.*]] = mloop.constant 0x7F800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = mloop.constant 0.0 : f32
// CHECK-DAG: %[[N:.*]] = mloop.dim %a, 1 : !mloop.buffer<?x?xf16>
// CHECK-DAG: %[[NF:.*]] = mloop.convert %[[N]] : index to f32
// keepdim max over dim 1: stores at index 0 of the kept size-1 dim.
// CHECK: mloop.parallel (%[[I:.*]]) =
// CHECK-NEXT: %[[MX:.*]] = mloop.reduce max (%[[J:.*]]) = ({{.*}}) to (%[[N]]) step ({{.*}}) init(%[[NINF]]) : f32 {
// CHECK-NEXT: %[[V:.*]] = mloop.load %a[%[[I]], %[[J]]] : !mloop.buffer<?x?xf16>
// CHECK-NEXT: %[[W:.*]] = mloop.convert %[[V]] : f16 to f32
// CHECK-NEXT: mloop.yield %[[W]] : f32
// CHECK: %[[H:.*]] = mloop.convert %[[MX]] : f32 to f16
// CHECK-NEXT: mloop.store %[[H]], %{{.*}}[%[[I]], %{{.*}}] : !mloop.buffer<?x1xf16>
// A full reduction has no parallel loop and a rank-0 result.
// CHECK: %[[PR:.*]] = mloop.reduce prod (%{{.*}}, %{{.*}}) = {{.*}} init(%[[ONE]]) : f32 {
// CHECK: mloop.store %{{.*}}, %{{.*}}[] : !mloop.buffer<f16>
// CHECK: mloop.reduce min {{.*}} init(%[[INF]]) : f32
// mean = sum, then a division by the element count.
// CHECK: %[[SUM:.*]] = mloop.reduce sum {{.*}} init(%[[ZERO]]) : f32
// CHECK: mloop.div %[[SUM]], %[[NF]] : f32
// F64-LABEL: func.func @kinds
// F64: mloop.reduce max {{.*}} : f64
// F64: mloop.convert %{{.*}} : f16 to f64
func.func @kinds(%a: tensor<?x?xf16>) -> (tensor<?x1xf16>, tensor<f16>, tensor<?xf16>, tensor<?xf16>) {
  %0 = mtensor.reduce max %a dims [1] keepdim : tensor<?x?xf16> -> tensor<?x1xf16>
  %1 = mtensor.reduce prod %a dims [0, 1] : tensor<?x?xf16> -> tensor<f16>
  %2 = mtensor.reduce min %a dims [0] : tensor<?x?xf16> -> tensor<?xf16>
  %3 = mtensor.reduce mean %a dims [1] : tensor<?x?xf16> -> tensor<?xf16>
  return %0, %1, %2, %3 : tensor<?x1xf16>, tensor<f16>, tensor<?xf16>, tensor<?xf16>
}

// An intermediate reduction gets its own buffer, freed after its last reader; the
// consumer reads it through the broadcast.
// CHECK-LABEL: func.func @softmax_like
// CHECK: %[[MAX:.*]] = mloop.alloc(%{{.*}}) : !mloop.buffer<?xf32>
// CHECK: mloop.reduce max
// CHECK: mloop.store %{{.*}}, %[[MAX]][%{{.*}}] : !mloop.buffer<?xf32>
// CHECK: %[[OUT:.*]] = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xf32>
// CHECK: mloop.parallel
// CHECK: mloop.load %[[MAX]][%{{.*}}] : !mloop.buffer<?xf32>
// CHECK: mloop.exp
// CHECK: mloop.dealloc %[[MAX]] : !mloop.buffer<?xf32>
// CHECK-NEXT: return %[[OUT]]
// F64-LABEL: func.func @softmax_like
// F64: mloop.reduce max {{.*}} : f64
func.func @softmax_like(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %mx = mtensor.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %b = mtensor.broadcast %mx dims [0] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %d = mtensor.sub %x, %b : tensor<?x?xf32>
  %e = mtensor.exp %d : tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}
