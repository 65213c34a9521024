// mtensor exported to linalg/tensor/arith/math on tensors, verified by MLIR's verifier and
// printed by MLIR's printer (value names travel as name locations). Upstream mlir-opt reads
// the output back, and the import turns it into the same program.
//
// REQUIRES: mlir
// RUN: morf-opt %s --emit=mlir | FileCheck %s
// RUN: morf-opt %s --emit=mlir > %t.linalg.mlir && morf-opt --import=mlir %t.linalg.mlir | FileCheck %s --check-prefix=BACK

// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[UNIT:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG:   #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @ops(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}, %b: tensor<1x?xf32>)
// CHECK:         %m = tensor.dim %x, %c0 : tensor<?x?xf32>
// CHECK:         %bb = linalg.generic {indexing_maps = [#[[UNIT]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<1x?xf32>)
// CHECK:         %e = linalg.generic
// CHECK:           math.exp
// CHECK:         %mx = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK:           arith.maximumf
// CHECK:         %c = linalg.generic
// CHECK:           arith.cmpf olt
// CHECK:         %s = linalg.generic
// CHECK:           arith.select
// CHECK:         linalg.fill ins(%cst{{.*}} : f32)
// CHECK:           arith.addf
// CHECK:         arith.sitofp
// CHECK:           arith.divf
// CHECK:         %mean = tensor.expand_shape {{.*}} {{\[}}[0, 1]] output_shape [%{{.*}}, 1] : tensor<?xf32> into tensor<?x1xf32>
// CHECK:         %t = linalg.generic {indexing_maps = [#[[T]], #[[ID]]]
// CHECK:         %h = linalg.generic
// CHECK:           arith.truncf {{.*}} : f32 to bf16
// CHECK:         return %e, %mx, %s, %mean, %t, %h
//
// BACK-LABEL: func.func @ops
// BACK:         %bb = mtensor.broadcast %b dims [0, 1] sizes(%m, %n) : tensor<1x?xf32> -> tensor<?x?xf32>
// BACK:         %e = mtensor.exp
// BACK:         %mx = mtensor.reduce max %e dims [1]
// BACK:         %c = mtensor.cmp lt
// BACK:         %s = mtensor.select %c
// BACK:         mtensor.reduce mean %s dims [1] : tensor<?x?xf32> -> tensor<?xf32>
// BACK:         %mean = mtensor.expand_shape
// BACK:         %t = mtensor.transpose %e perm [1, 0]
// BACK:         %h = mtensor.convert %x : tensor<?x?xf32> to tensor<?x?xbf16>

func.func @ops(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}, %b: tensor<1x?xf32>)
    -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xbf16>) {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %bb = mtensor.broadcast %b dims [0, 1] sizes(%m, %n) : tensor<1x?xf32> -> tensor<?x?xf32>
  %xb = mtensor.add %x, %bb : tensor<?x?xf32>
  %e = mtensor.exp %xb : tensor<?x?xf32>
  %mx = mtensor.reduce max %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c = mtensor.cmp lt, %x, %e : tensor<?x?xf32>
  %s = mtensor.select %c, %x, %e : tensor<?x?xi1>, tensor<?x?xf32>
  %mean = mtensor.reduce mean %s dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
  %t = mtensor.transpose %e perm [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %h = mtensor.convert %x : tensor<?x?xf32> to tensor<?x?xbf16>
  return %e, %mx, %s, %mean, %t, %h : tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xbf16>
}
