// The loop level exported to scf/memref/arith: the fused RMSNorm backward (examples/
// rmsnorm_bwd.mlir after --pipeline=fuse), and atomic accumulates. Buffers are memrefs,
// mloop.parallel an scf.parallel, mloop.reduce an scf.parallel with an scf.reduce combiner,
// morf's kernel attributes stay as discardable attributes. Upstream mlir-opt reads it back.
//
// REQUIRES: mlir
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=fuse --emit=mlir | FileCheck %s
// RUN: morf-opt %s --split-input-file --loop-map='atomics=true' --emit=mlir | FileCheck %s --check-prefix=ATOMIC
// A split sized by occupancy (`partials=resident`): its `mloop.resident_programs` is a call of
// a private declaration that keeps `assumed` (the number is bound by a GPU lowering).
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384 partials=resident},canonicalize,cse)' --emit=mlir | FileCheck %s --check-prefix=RES
// RES: %{{.*}} = call @__morf_resident_programs_0() : () -> index
// RES: func.func private @__morf_resident_programs_0() -> index attributes {morf.assumed = 132 : i64}

// CHECK-LABEL: func.func @rmsnorm_bwd(%x: memref<?x?xbf16> {morf.dims = ["M", "N"]}
// CHECK:         %workspace = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf32>
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) init (%{{.*}}) -> f32 {
// CHECK:             memref.load %dy[
// CHECK:             scf.reduce(%{{.*}} : f32) {
// CHECK:               arith.addf
// CHECK:               scf.reduce.return
// CHECK:           memref.store %{{.*}}, %workspace[
// CHECK:         } {morf.kernel = {kind = "row-fused"
// CHECK:         memref.dealloc %workspace : memref<?x?xf32>
// CHECK:         return

// ATOMIC-LABEL: func.func @colsum
// ATOMIC:         memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<?xf32>) -> f32
// ATOMIC:         } {morf.mapping = [{level = "grid"

func.func @colsum(%x: !mloop.buffer<?x?xf32>, %s: !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.accumulate sum %v, %s[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  func.return
}
