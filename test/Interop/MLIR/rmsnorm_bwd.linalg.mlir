// RMSNorm backward written as upstream linalg on tensors (the math of examples/rmsnorm_bwd.mlir),
// in the style a frontend emits: fused linalg.generic ops with broadcasting indexing maps, a
// multi-result generic, a row reduction whose mean divides by the size inline, a named
// elementwise op and a linalg.reduce. morf imports it to mtensor (--import=mlir), fuses the
// row and column reductions (--pipeline=gpu), and the compiled kernels on the GPU simulator
// agree with the interpreter on the imported program.
//
// REQUIRES: mlir
// RUN: morf-opt --import=mlir %s | FileCheck %s --check-prefix=IMPORT
// RUN: morf-opt --import=mlir %s --pipeline=gpu --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSE
// RUN: morf-opt --import=mlir %s --pipeline=gpu | FileCheck %s --check-prefix=GPU
// RUN: morf-run --import=mlir %s --device sim --random M=37,N=100 --seed 1 --check --output-dir %t.sim \
// RUN:   | FileCheck %s --check-prefix=SIM
// The imported program and examples/rmsnorm_bwd.mlir compute the same thing on the interpreter.
// RUN: morf-run --import=mlir %s --random M=23,N=40 --seed 2 --output-dir %t.a > /dev/null
// RUN: morf-run %S/../../../examples/rmsnorm_bwd.mlir --random M=23,N=40 --seed 2 --output-dir %t.b > /dev/null
// RUN: cmp %t.a/result0.npy %t.b/result0.npy && cmp %t.a/result1.npy %t.b/result1.npy

// IMPORT-LABEL: func.func @rmsnorm_bwd(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]}
// IMPORT:       %xhat = mtensor.mul
// IMPORT:       %c = mtensor.reduce mean %{{.*}} dims [1] : tensor<?x?xf32> -> tensor<?xf32>
// IMPORT:       %dx = mtensor.convert
// IMPORT:       mtensor.reduce sum %{{.*}} dims [0] : tensor<?x?xf32> -> tensor<?xf32>
// IMPORT-NOT:   linalg.
// FUSE:         fused
// GPU:          mgpu.func
// SIM:          check result0: {{.*}} ok
// SIM-NEXT:     check result1: {{.*}} ok

#xy = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>

func.func @rmsnorm_bwd(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                       %w: tensor<?xbf16> {morf.dims = ["N"]},
                       %dy: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                       %rstd: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"})
    -> (tensor<?x?xbf16>, tensor<?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %n = tensor.dim %x, %c1 : tensor<?x?xbf16>
  %e2 = tensor.empty(%m, %n) : tensor<?x?xf32>
  // xhat = x * rstd[:, None], dyw = dy * w[None, :], dyf = dy (f32): one generic, three results.
  %xhat, %dyw, %dyf = linalg.generic
      {indexing_maps = [#xy, #row, #xy, #col, #xy, #xy, #xy], iterator_types = ["parallel", "parallel"]}
      ins(%x, %rstd, %dy, %w : tensor<?x?xbf16>, tensor<?xf32>, tensor<?x?xbf16>, tensor<?xbf16>)
      outs(%e2, %e2, %e2 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  ^bb0(%xv: bf16, %r: f32, %dyv: bf16, %wv: bf16, %o0: f32, %o1: f32, %o2: f32):
    %xf = arith.extf %xv : bf16 to f32
    %xh = arith.mulf %xf, %r : f32
    %dyv32 = arith.extf %dyv : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %p = arith.mulf %dyv32, %wf : f32
    linalg.yield %xh, %p, %dyv32 : f32, f32, f32
  } -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  // s = sum over N of dyw * xhat: a row reduction.
  %e1 = tensor.empty(%m) : tensor<?xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#xy, #xy, #row], iterator_types = ["parallel", "reduction"]}
      ins(%dyw, %xhat : tensor<?x?xf32>, tensor<?x?xf32>) outs(%z1 : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %ab = arith.mulf %a, %b : f32
    %sum = arith.addf %ab, %acc : f32
    linalg.yield %sum : f32
  } -> tensor<?xf32>
  // c = s / N: the mean over the row.
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %c = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%s : tensor<?xf32>) outs(%e1 : tensor<?xf32>) {
  ^bb0(%sv: f32, %o: f32):
    %mean = arith.divf %sv, %nf : f32
    linalg.yield %mean : f32
  } -> tensor<?xf32>
  // dx = rstd * (dyw - xhat * c), rounded to bf16.
  %eb = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %dx = linalg.generic {indexing_maps = [#row, #xy, #xy, #row, #xy], iterator_types = ["parallel", "parallel"]}
      ins(%rstd, %dyw, %xhat, %c : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>)
      outs(%eb : tensor<?x?xbf16>) {
  ^bb0(%r: f32, %p: f32, %xh: f32, %cv: f32, %o: bf16):
    %t = arith.mulf %xh, %cv : f32
    %d = arith.subf %p, %t : f32
    %dxf = arith.mulf %r, %d : f32
    %dxb = arith.truncf %dxf : f32 to bf16
    linalg.yield %dxb : bf16
  } -> tensor<?x?xbf16>
  // dw = sum over M of dy * xhat: a named product, then a column linalg.reduce.
  %g = linalg.mul ins(%dyf, %xhat : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %en = tensor.empty(%n) : tensor<?xf32>
  %zn = linalg.fill ins(%zero : f32) outs(%en : tensor<?xf32>) -> tensor<?xf32>
  %dwf = linalg.reduce ins(%g : tensor<?x?xf32>) outs(%zn : tensor<?xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %acc = arith.addf %in, %init : f32
      linalg.yield %acc : f32
    }
  %enb = tensor.empty(%n) : tensor<?xbf16>
  %dw = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%dwf : tensor<?xf32>) outs(%enb : tensor<?xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %b = arith.truncf %a : f32 to bf16
    linalg.yield %b : bf16
  } -> tensor<?xbf16>
  return %dx, %dw : tensor<?x?xbf16>, tensor<?xbf16>
}
