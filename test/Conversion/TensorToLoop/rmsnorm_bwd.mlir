// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --lower-tensor-to-loop | FileCheck %s

// RMSNorm backward becomes three nests, in the program order of their roots: the row
// reduction (mean over N of dy*w*xhat), the column reduction (dw = sum over M of dy*xhat,
// with its bf16 conversion fused as an epilogue) and the dx nest, which recomputes xhat
// and dy*w and reads the row result. The row buffer is freed after the dx nest.
// CHECK-LABEL: func.func @rmsnorm_bwd(%x: !mloop.buffer<?x?xbf16> {morf.dims = ["M", "N"]}
// CHECK-SAME: -> (!mloop.buffer<?x?xbf16>, !mloop.buffer<?xbf16>)
// Row reduction.
// CHECK: %[[ROW:.*]] = mloop.alloc(%[[M:.*]]) : !mloop.buffer<?xf32>
// CHECK: mloop.parallel (%[[I:.*]]) =
// CHECK: mloop.load %rstd[
// CHECK: %[[C:.*]] = mloop.reduce sum (%[[J:.*]]) =
// CHECK: mloop.load %dy[%[[I]], %[[J]]]
// CHECK: mloop.load %x[%[[I]], %[[J]]]
// CHECK: mloop.div %[[C]], %{{.*}} : f32
// CHECK: mloop.store %{{.*}}, %[[ROW]][%[[I]]] : !mloop.buffer<?xf32>
// Column reduction.
// CHECK: %[[DW:.*]] = mloop.alloc(%{{.*}}) : !mloop.buffer<?xbf16>
// CHECK: mloop.parallel (%[[J2:.*]]) =
// CHECK: mloop.reduce sum (%[[I2:.*]]) =
// CHECK: mloop.load %dy[%[[I2]], %[[J2]]]
// CHECK: mloop.load %x[%[[I2]], %[[J2]]]
// CHECK: mloop.convert %{{.*}} : f32 to bf16
// CHECK: mloop.store %{{.*}}, %[[DW]][%[[J2]]] : !mloop.buffer<?xbf16>
// dx.
// CHECK: %[[DX:.*]] = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xbf16>
// CHECK: mloop.parallel (%[[I3:.*]], %[[J3:.*]]) =
// CHECK-NOT: mloop.reduce
// CHECK: mloop.load %[[ROW]][%[[I3]]] : !mloop.buffer<?xf32>
// CHECK: mloop.store %{{.*}}, %[[DX]][%[[I3]], %[[J3]]] : !mloop.buffer<?x?xbf16>
// CHECK: mloop.dealloc %[[ROW]] : !mloop.buffer<?xf32>
// CHECK-NEXT: return %[[DX]], %[[DW]] : !mloop.buffer<?x?xbf16>, !mloop.buffer<?xbf16>
// CHECK-NOT: mloop.parallel
// CHECK-NOT: mtensor.
