// LayerNorm backward written as upstream linalg on tensors (the math of
// examples/layernorm_bwd.mlir): two row sums in one multi-result reduction generic, the two
// means divided by N inside the generic that computes dx, and dw, db as one multi-result
// column reduction over bf16 inputs. morf imports it (the sums divided by their element
// count become `mean`s), fuses the row and column reductions (--pipeline=gpu), and the
// kernels on the GPU simulator agree with the interpreter on the imported program.
//
// REQUIRES: mlir
// RUN: morf-opt --import=mlir %s | FileCheck %s --check-prefix=IMPORT
// RUN: morf-opt --import=mlir %s --pipeline=gpu --fusion-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSE
// RUN: morf-run --import=mlir %s --device sim --random M=29,N=70 --seed 1 --check --output-dir %t.sim \
// RUN:   | FileCheck %s --check-prefix=SIM
// The imported program and examples/layernorm_bwd.mlir agree on the interpreter (the same ops
// up to order, so within float rounding: checked with NumPy when it is there).
// RUN: morf-run --import=mlir %s --random M=23,N=40 --seed 2 --output-dir %t.a > /dev/null
// RUN: morf-run %S/../../../examples/layernorm_bwd.mlir --random M=23,N=40 --seed 2 --output-dir %t.b > /dev/null
// RUN: for i in 0 1 2; do cmp %t.a/result$i.npy %t.b/result$i.npy || exit 1; done

// IMPORT-LABEL: func.func @layernorm_bwd(
// IMPORT-DAG:   mtensor.reduce mean %{{.*}} dims [1] : tensor<?x?xf32> -> tensor<?xf32>
// IMPORT-DAG:   mtensor.reduce mean %{{.*}} dims [1] : tensor<?x?xf32> -> tensor<?xf32>
// IMPORT-DAG:   mtensor.reduce sum %{{.*}} dims [0] : tensor<?x?xf32> -> tensor<?xf32>
// IMPORT-DAG:   mtensor.reduce sum %{{.*}} dims [0] : tensor<?x?xf32> -> tensor<?xf32>
// IMPORT-NOT:   mtensor.div
// FUSE:         chosen plan: rowfused
// SIM:          check result0: {{.*}} ok
// SIM-NEXT:     check result1: {{.*}} ok
// SIM-NEXT:     check result2: {{.*}} ok

#xy = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @layernorm_bwd(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                         %w: tensor<?xbf16> {morf.dims = ["N"]},
                         %dy: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                         %mean: tensor<?xf32> {morf.dims = ["M"]},
                         %rstd: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"})
    -> (tensor<?x?xbf16>, tensor<?xbf16>, tensor<?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %n = tensor.dim %x, %c1 : tensor<?x?xbf16>
  %e2 = tensor.empty(%m, %n) : tensor<?x?xf32>
  // xhat = (x - mean) * rstd, dyw = dy * w.
  %xhat, %dyw = linalg.generic
      {indexing_maps = [#xy, #row, #row, #xy, #col, #xy, #xy], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %dy, %w : tensor<?x?xbf16>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xbf16>, tensor<?xbf16>)
      outs(%e2, %e2 : tensor<?x?xf32>, tensor<?x?xf32>) {
  ^bb0(%xv: bf16, %mu: f32, %r: f32, %dyv: bf16, %wv: bf16, %o0: f32, %o1: f32):
    %xf = arith.extf %xv : bf16 to f32
    %xc = arith.subf %xf, %mu : f32
    %xh = arith.mulf %xc, %r : f32
    %dyf = arith.extf %dyv : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %p = arith.mulf %dyf, %wf : f32
    linalg.yield %xh, %p : f32, f32
  } -> (tensor<?x?xf32>, tensor<?x?xf32>)
  // s1 = sum_N(xhat * dyw), s2 = sum_N(dyw): one generic, two row reductions.
  %e1 = tensor.empty(%m) : tensor<?xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %s1, %s2 = linalg.generic {indexing_maps = [#xy, #xy, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%xhat, %dyw : tensor<?x?xf32>, tensor<?x?xf32>) outs(%z1, %z1 : tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%xh: f32, %p: f32, %a1: f32, %a2: f32):
    %t = arith.mulf %xh, %p : f32
    %n1 = arith.addf %a1, %t : f32
    %n2 = arith.addf %a2, %p : f32
    linalg.yield %n1, %n2 : f32, f32
  } -> (tensor<?xf32>, tensor<?xf32>)
  // dx = (dyw - (xhat * c1 + c2)) * rstd with c1 = s1 / N, c2 = s2 / N, rounded to bf16.
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %eb = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %dx = linalg.generic {indexing_maps = [#xy, #xy, #row, #row, #row, #xy], iterator_types = ["parallel", "parallel"]}
      ins(%xhat, %dyw, %s1, %s2, %rstd : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
      outs(%eb : tensor<?x?xbf16>) {
  ^bb0(%xh: f32, %p: f32, %t1: f32, %t2: f32, %r: f32, %o: bf16):
    %c1v = arith.divf %t1, %nf : f32
    %c2v = arith.divf %t2, %nf : f32
    %a = arith.mulf %xh, %c1v : f32
    %a2 = arith.addf %a, %c2v : f32
    %d = arith.subf %p, %a2 : f32
    %dxf = arith.mulf %d, %r : f32
    %dxb = arith.truncf %dxf : f32 to bf16
    linalg.yield %dxb : bf16
  } -> tensor<?x?xbf16>
  // dw = sum_M(dy * xhat), db = sum_M(dy): one generic, two column reductions (loop d0).
  %en = tensor.empty(%n) : tensor<?xf32>
  %zn = linalg.fill ins(%zero : f32) outs(%en : tensor<?xf32>) -> tensor<?xf32>
  %dwf, %dbf = linalg.generic {indexing_maps = [#xy, #xy, #col, #col], iterator_types = ["reduction", "parallel"]}
      ins(%dy, %xhat : tensor<?x?xbf16>, tensor<?x?xf32>) outs(%zn, %zn : tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%dyv: bf16, %xh: f32, %aw: f32, %ab: f32):
    %dyf = arith.extf %dyv : bf16 to f32
    %g = arith.mulf %dyf, %xh : f32
    %nw = arith.addf %g, %aw : f32
    %nb = arith.addf %dyf, %ab : f32
    linalg.yield %nw, %nb : f32, f32
  } -> (tensor<?xf32>, tensor<?xf32>)
  %enb = tensor.empty(%n) : tensor<?xbf16>
  %dw, %db = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%dwf, %dbf : tensor<?xf32>, tensor<?xf32>) outs(%enb, %enb : tensor<?xbf16>, tensor<?xbf16>) {
  ^bb0(%a: f32, %b: f32, %o1: bf16, %o2: bf16):
    %ta = arith.truncf %a : f32 to bf16
    %tb = arith.truncf %b : f32 to bf16
    linalg.yield %ta, %tb : bf16, bf16
  } -> (tensor<?xbf16>, tensor<?xbf16>)
  return %dx, %dw, %db : tensor<?x?xbf16>, tensor<?xbf16>, tensor<?xbf16>
}
