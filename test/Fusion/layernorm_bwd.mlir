// LayerNorm backward (bf16 and f32): both column reductions (dw, db) become partials in the
// one row-fused kernel, next to the two row reductions and dx; their finals share a launch.
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=576000,N=384' | FileCheck %s
// RUN: morf-opt %S/../../examples/layernorm_bwd_f32.mlir --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=576000,N=384' | FileCheck %s

// CHECK-LABEL: func.func @layernorm_bwd
// CHECK:         %[[W1:workspace[_0-9]*]] = mloop.alloc({{.*}}) : !mloop.buffer<?x?xf32>
// CHECK:         %[[W2:workspace[_0-9]*]] = mloop.alloc({{.*}}) : !mloop.buffer<?x?xf32>
// CHECK:         mloop.parallel (%[[I:.*]]) =
// CHECK:           mloop.reduce sum
// CHECK:           mloop.reduce sum
// CHECK:           mloop.parallel (%[[J:.*]]) =
// CHECK:             mloop.store %{{.*}}[%[[I]], %[[J]]]
// CHECK:             mloop.accumulate sum %{{.*}}, %[[W1]][%{{.*}}, %[[J]]]
// CHECK:             mloop.accumulate sum %{{.*}}, %[[W2]][%{{.*}}, %[[J]]]
// CHECK:         } attributes {morf.kernel = {kind = "row-fused", split = {{[0-9]+}}, style = "persistent"}}
// CHECK:         mloop.parallel
// CHECK:           mloop.load %[[W1]]
// CHECK:           mloop.load %[[W2]]
// CHECK:         } attributes {morf.kernel = {kind = "final", split = {{[0-9]+}}}}
// CHECK-NOT:     mloop.parallel
// CHECK:         func.return
