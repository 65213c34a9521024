// RMSNorm backward (examples/rmsnorm_bwd.mlir) at 576000 x 384: one row-fused kernel reads x
// and dy once, computes the row reduction, dx, and partial column sums of dw into an f32
// workspace; a final deterministic reduction sums the partials and rounds dw to bf16. The
// temporary of the row result is gone (its loads became the scalar).
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=576000,N=384' | FileCheck %s
// RUN: morf-opt %S/../../examples/rmsnorm_bwd_f32.mlir --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=576000,N=384' | FileCheck %s --check-prefix=F32

// CHECK-LABEL: func.func @rmsnorm_bwd
// CHECK-NOT:     mloop.alloc({{.*}}) : !mloop.buffer<?xf32>
// CHECK:         %[[WS:.*]] = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xf32>
// CHECK:         mloop.fill %{{.*}}, %[[WS]] : !mloop.buffer<?x?xf32>
// CHECK:         mloop.parallel (%[[I:.*]]) =
// CHECK:           %[[R:.*]] = mloop.reduce sum
// CHECK:             mloop.load %dy[%[[I]], %{{.*}}]
// CHECK:             mloop.load %x[%[[I]], %{{.*}}]
// CHECK:           %[[C:.*]] = mloop.div %[[R]], %{{.*}} : f32
// CHECK-NOT:       mloop.store
// CHECK:           mloop.parallel (%[[J:.*]]) =
// CHECK:             mloop.load %dy[%[[I]], %[[J]]]
// CHECK:             mloop.load %x[%[[I]], %[[J]]]
// CHECK:             mloop.mul %{{.*}}, %[[C]] : f32
// CHECK:             mloop.store %{{.*}}, %[[DX:.*]][%[[I]], %[[J]]] : !mloop.buffer<?x?xbf16>
// CHECK:             %[[S:.*]] = mloop.div %[[I]], %{{.*}} : index
// CHECK:             mloop.accumulate sum %{{.*}}, %[[WS]][%[[S]], %[[J]]] : !mloop.buffer<?x?xf32>
// CHECK:         } attributes {morf.kernel = {kind = "row-fused", split = [[S:[0-9]+]], style = "persistent"}}
// CHECK:         mloop.parallel (%[[K:.*]]) =
// CHECK:           %[[F:.*]] = mloop.reduce sum (%[[SP:.*]]) = {{.*}} init
// CHECK:             mloop.load %[[WS]][%[[SP]], %[[K]]]
// CHECK:           mloop.convert %[[F]] : f32 to bf16
// CHECK:           mloop.store
// CHECK:         } attributes {morf.kernel = {kind = "final", split = [[S]]}}
// CHECK-NEXT:    mloop.dealloc %[[WS]]
// CHECK-NEXT:    func.return %[[DX]]

// F32-LABEL: func.func @rmsnorm_bwd(%x: !mloop.buffer<?x?xf32>
// F32:         mloop.fill
// F32:         mloop.accumulate sum
// F32:         attributes {morf.kernel = {kind = "row-fused", split = {{[0-9]+}}, style = "persistent"}}
// F32:         mloop.reduce sum
// F32-NOT:     mloop.convert
// F32:         attributes {morf.kernel = {kind = "final", split = {{[0-9]+}}}}
