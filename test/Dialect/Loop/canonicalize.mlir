// RUN: morf-opt %s --canonicalize --split-input-file | FileCheck %s

// Scalar folds materialize `mloop.constant`s.
// CHECK-LABEL: func.func @fold_scalars
// CHECK-DAG: %[[A:.*]] = mloop.constant 3.0 : f32
// CHECK-DAG: %[[I:.*]] = mloop.constant -4 : index
// CHECK-DAG: %[[R:.*]] = mloop.constant 1 : index
// CHECK-DAG: %[[P:.*]] = mloop.constant true : i1
// CHECK-NOT: mloop.add
// CHECK-NOT: mloop.div
// CHECK: return %[[A]], %[[I]], %[[R]], %[[P]]
func.func @fold_scalars() -> (f32, index, index, i1) {
  %a = mloop.constant 1.0 : f32
  %b = mloop.constant 2.0 : f32
  %s = mloop.add %a, %b : f32
  %m7 = mloop.constant -7 : index
  %c2 = mloop.constant 2 : index
  %q = mloop.div %m7, %c2 : index
  %r = mloop.rem %m7, %c2 : index
  %p = mloop.cmp lt, %a, %b : f32
  return %s, %q, %r, %p : f32, index, index, i1
}

// -----

// `dim` of a static dim folds; a dynamic one stays.
// CHECK-LABEL: func.func @fold_dim
// CHECK-DAG: %[[C:.*]] = mloop.constant 4 : index
// CHECK-DAG: %[[D:.*]] = mloop.dim %{{.*}}, 0 : !mloop.buffer<?x4xf32>
// CHECK-NOT: mloop.dim
// CHECK: return %[[D]], %[[C]]
func.func @fold_dim(%b: !mloop.buffer<?x4xf32>) -> (index, index) {
  %d0 = mloop.dim %b, 0 : !mloop.buffer<?x4xf32>
  %d1 = mloop.dim %b, 1 : !mloop.buffer<?x4xf32>
  return %d0, %d1 : index, index
}

// -----

// Loads are not merged or removed across stores (they are not pure).
// CHECK-LABEL: func.func @loads_stay
// CHECK: mloop.load
// CHECK: mloop.store
// CHECK: mloop.load
func.func @loads_stay(%b: !mloop.buffer<4xf32>, %v: f32) -> (f32, f32) {
  %c0 = mloop.constant 0 : index
  %x = mloop.load %b[%c0] : !mloop.buffer<4xf32>
  mloop.store %v, %b[%c0] : !mloop.buffer<4xf32>
  %y = mloop.load %b[%c0] : !mloop.buffer<4xf32>
  return %x, %y : f32, f32
}
