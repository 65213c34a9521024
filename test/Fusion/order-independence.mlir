// The plan does not depend on the order of independent statements (issue 10): a column sum
// written before the row sum of the same tensor fuses exactly as the other order does, a row
// kernel holding the row sum and the column partial, then the final.
// RUN: morf-opt %s --lower-tensor-to-loop --fuse-mixed-reductions | FileCheck %s
// RUN: morf-opt %s --pipeline=fuse --fusion-report 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @column_first
// CHECK:         %[[WS:workspace]] = mloop.alloc
// CHECK:         mloop.parallel (%[[I:.*]]) =
// CHECK-NEXT:      mloop.reduce sum
// CHECK:           mloop.parallel (%[[J:.*]]) =
// CHECK:             mloop.accumulate sum %{{.*}}, %[[WS]][%{{.*}}, %[[J]]]
// CHECK:         } attributes {morf.kernel = {kind = "row-fused", split = [[S:[0-9]+]], style = "persistent"}}
// CHECK:         } attributes {morf.kernel = {kind = "final", split = [[S]]}}
// CHECK-LABEL: func.func @row_first
// CHECK:         %[[WS:workspace]] = mloop.alloc
// CHECK:         mloop.parallel (%[[I:.*]]) =
// CHECK-NEXT:      mloop.reduce sum
// CHECK:           mloop.parallel (%[[J:.*]]) =
// CHECK:             mloop.accumulate sum %{{.*}}, %[[WS]][%{{.*}}, %[[J]]]
// CHECK:         } attributes {morf.kernel = {kind = "row-fused", split = [[S]], style = "persistent"}}
// CHECK:         } attributes {morf.kernel = {kind = "final", split = [[S]]}}

// nest0 is the column sum in @column_first and the row sum in @row_first.
// PLAN: @column_first: chosen plan: rowfused.persistent[partial(nest0, S=[[S:[0-9]+]]) + nest1] ;
// PLAN-SAME: final(nest0, S=[[S]])
// PLAN: @row_first: chosen plan: rowfused.persistent[nest0 + partial(nest1, S=[[S]])] ; final(nest1, S=[[S]])

func.func @column_first(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %c = mtensor.reduce sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %r = mtensor.reduce sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %r, %c : tensor<?xf32>, tensor<?xf32>
}

func.func @row_first(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %r = mtensor.reduce sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c = mtensor.reduce sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %r, %c : tensor<?xf32>, tensor<?xf32>
}
