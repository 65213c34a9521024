// loop-partial-accumulate: a reduction nest becomes a workspace of partials filled with the
// identity, a pointwise nest (reduced dims outer) accumulating into it, and the original nest
// reducing the nsplit partials (same init, same epilogue), then a dealloc.
// REQUIRES: numpy
//
// RUN: morf-opt %s --loop-partial-accumulate='nest=0 split-size=16' | FileCheck %s
// RUN: morf-opt %s --pass-pipeline='builtin.module(func.func(loop-partial-accumulate{nest=2 split-size=8}))' \
// RUN:   | FileCheck --check-prefix=MAX %s
//
// Results equal the original within fp32 tolerance (37 rows: the last split is partial).
// RUN: morf-run %s --random M=37,N=100 --output-dir %t/ref
// RUN: morf-opt %s --loop-partial-accumulate='nest=0 split-size=16' | morf-run - --random M=37,N=100 --output-dir %t/a
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/a --rtol 1e-5
// RUN: morf-opt %s --loop-partial-accumulate='nest=2 split-size=1' | morf-run - --random M=37,N=100 --output-dir %t/b
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/b --exact
// At most K partials sized at run time (`partials`): 37 rows in 5 partials of 8 rows, and more
// partials than rows (64: one row each).
// RUN: morf-opt %s --loop-partial-accumulate='nest=0 partials=5' | FileCheck --check-prefix=PARTIALS %s
// RUN: morf-opt %s --loop-partial-accumulate='nest=0 partials=5' | morf-run - --random M=37,N=100 --output-dir %t/p5
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/p5 --rtol 1e-5
// RUN: morf-opt %s --loop-partial-accumulate='nest=0 partials=64' | morf-run - --random M=37,N=100 --output-dir %t/p64
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/p64 --rtol 1e-5
// As many partials as (R times) the kernel's resident programs (`partials=resident*R`): an
// `mloop.resident_programs` the interpreter answers with `assumed` (132 here, before any GPU
// lowering binds it): 37 rows in 37 partials of one row.
// RUN: morf-opt %s --loop-partial-accumulate='nest=0 partials=resident*2' | FileCheck --check-prefix=RESIDENT %s
// RUN: morf-opt %s --loop-partial-accumulate='nest=0 partials=resident' | morf-run - --random M=37,N=100 --output-dir %t/res
// RUN: python3 %S/Inputs/compare_results.py %t/ref %t/res --rtol 1e-5
// RUN: not morf-opt %s --loop-partial-accumulate='partials=resident*0' 2>&1 | FileCheck --check-prefix=NRES %s
//
// The column reduction (dw) of the lowered RMSNorm backward is nest 1.
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --lower-tensor-to-loop \
// RUN:   --loop-partial-accumulate='nest=1 split-size=16' | FileCheck --check-prefix=RMS %s
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --lower-tensor-to-loop | morf-run - --random M=37,N=100 --output-dir %t/rms-ref
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --lower-tensor-to-loop --loop-partial-accumulate='nest=1 split-size=16' \
// RUN:   | morf-run - --random M=37,N=100 --output-dir %t/rms
// RUN: python3 %S/Inputs/compare_results.py %t/rms-ref %t/rms --rtol 1e-2
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --lower-tensor-to-loop --loop-partial-accumulate='nest=0 split-size=7' \
// RUN:   | morf-run - --random M=37,N=100 --output-dir %t/rms-row
// RUN: python3 %S/Inputs/compare_results.py %t/rms-ref %t/rms-row --rtol 1e-2
//
// A 3-D input reduced over dims (0, 1) and over dim 2 (examples/reduce3d.mlir), fused: the
// partials split the flattened (B, M) rows (ceildiv(B*M, S) workspace rows), and the row
// kernel's rows (b, m) collapse to one flat row loop over B*M (`collapse_parallel_dims`), so
// the partial index is `row div S` and the GPU mapping is row_fused, not one thread.
// RUN: morf-opt %S/../../examples/reduce3d.mlir --pipeline=fuse --size-hints B=64,M=1024,N=1024 \
// RUN:   | FileCheck --check-prefix=R3D %s
// RUN: morf-opt %S/../../examples/reduce3d.mlir --pipeline=gpu --size-hints B=64,M=1024,N=1024 \
// RUN:   --schedule-report -o /dev/null 2>&1 | FileCheck --check-prefix=R3D-SCHED %s
// RUN: morf-run %S/../../examples/reduce3d.mlir --device sim --random B=3,M=13,N=100 --check \
// RUN:   --output-dir %t/r3d 2>&1 | FileCheck --check-prefix=R3D-RUN %s
//
// Errors.
// RUN: not morf-opt %s --loop-partial-accumulate='nest=1' 2>&1 | FileCheck --check-prefix=SHAPE %s
// RUN: not morf-opt %s --loop-partial-accumulate='nest=3' 2>&1 | FileCheck --check-prefix=RANGE %s
// RUN: not morf-opt %s --loop-partial-accumulate='split-size=0' 2>&1 | FileCheck --check-prefix=SIZE %s
// RUN: not morf-opt %s --loop-partial-accumulate='partials=-1' 2>&1 | FileCheck --check-prefix=NPART %s

// CHECK-LABEL: func.func @f
// CHECK:       %[[S:.*]] = mloop.constant 16 : index
// CHECK:       %[[NS:.*]] = mloop.div %{{.*}}, %[[S]] : index
// CHECK-NEXT:  %[[W:.*]] = mloop.alloc(%[[NS]], %n) : !mloop.buffer<?x?xf32>
// CHECK-NEXT:  mloop.fill %zero, %[[W]] : !mloop.buffer<?x?xf32>
// CHECK-NEXT:  mloop.parallel (%[[I:[a-z0-9_]+]], %[[J:[a-z0-9_]+]]) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
// CHECK-NEXT:    %[[V:.*]] = mloop.load %x[%[[I]], %[[J]]]
// CHECK-NEXT:    %[[SI:.*]] = mloop.div %[[I]], %[[S]] : index
// CHECK-NEXT:    mloop.accumulate sum %[[V]], %[[W]][%[[SI]], %[[J]]] : !mloop.buffer<?x?xf32>
// CHECK-NEXT:    mloop.yield
// CHECK-NEXT:  }
// CHECK:       mloop.parallel (%[[J2:[a-z0-9_]+]]) = (%c0) to (%n) step (%c1) {
// CHECK-NEXT:    %[[R:.*]] = mloop.reduce sum (%[[K:[a-z0-9_]+]]) = (%{{.*}}) to (%[[NS]]) step (%{{.*}}) init(%zero) : f32 {
// CHECK-NEXT:      %[[P:.*]] = mloop.load %[[W]][%[[K]], %[[J2]]]
// CHECK-NEXT:      mloop.yield %[[P]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[MEAN:.*]] = mloop.div %[[R]], %mf : f32
// CHECK-NEXT:    mloop.store %[[MEAN]], %cs[%[[J2]]]
// CHECK-NEXT:    mloop.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  mloop.dealloc %[[W]] : !mloop.buffer<?x?xf32>

// The init of a max is not its identity: the workspace is filled with -inf and the final
// reduction starts from the init.
// MAX:         %[[NINF:.*]] = mloop.constant 0xFF800000 : f32
// MAX-NEXT:    mloop.fill %[[NINF]], %[[W:.*]] : !mloop.buffer<?x?xf32>
// MAX:         mloop.accumulate max
// MAX:         mloop.reduce max (%{{.*}}) = {{.*}} init(%half) : f32 {
// MAX:         mloop.dealloc %[[W]]

// RMS:         %[[W:.*]] = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xf32>
// RMS:         mloop.accumulate sum %{{.*}}, %[[W]][%{{.*}}, %{{.*}}] : !mloop.buffer<?x?xf32>
// RMS:         mloop.reduce sum
// RMS:         mloop.dealloc %[[W]]

// R3D-LABEL: func.func @reduce3d
// R3D-DAG:     %[[B:.*]] = mloop.dim %x, 0
// R3D-DAG:     %[[M:.*]] = mloop.dim %x, 1
// R3D:         %[[BM:.*]] = mloop.mul %[[B]], %[[M]] : index
// R3D:         %[[S:.*]] = mloop.constant [[SV:[0-9]+]] : index
// R3D:         %workspace = mloop.alloc(%{{.*}}, %{{.*}}) : !mloop.buffer<?x?xf32>
// R3D:         mloop.parallel (%row) = (%{{.*}}) to (%[[BM]]) step (%{{.*}}) {
// R3D-NEXT:      %[[IM:.*]] = mloop.rem %row, %[[M]] : index
// R3D-NEXT:      %[[IB:.*]] = mloop.div %row, %[[M]] : index
// R3D:           mloop.load %x[%[[IB]], %[[IM]], %{{.*}}]
// R3D:           mloop.parallel (%[[J:.*]]) =
// R3D-NOT:       mloop.mul
// R3D:             %[[SPLIT:.*]] = mloop.div %row, %[[S]] : index
// R3D-NEXT:        mloop.accumulate sum %{{.*}}, %workspace[%[[SPLIT]], %[[J]]]
// R3D:         } attributes {morf.kernel = {kind = "row-fused", split = [[SV]], style = "{{.*}}"}}

// R3D-SCHED: schedule: @reduce3d_k0: row_fused
// R3D-SCHED-NOT: sequential
// R3D-SCHED: schedule: @reduce3d_k1: final_reduction
// R3D-SCHED-NOT: sequential

// R3D-RUN: ran {{[1-9][0-9]*}} kernel launch{{(es)?}} on the GPU simulator
// R3D-RUN-NEXT: check result0: rel_err={{.*}} ok
// R3D-RUN-NEXT: check result1: rel_err={{.*}} ok

// SHAPE: error: 'mloop.parallel' op cannot be converted to partial accumulations: expected exactly one 'mloop.reduce' directly in the body, found 0
// RANGE: error: 'func.func' op has no loop nest nest=3: it has 3 top-level 'mloop.parallel'/'mloop.for' nests
// SIZE: error: pass 'loop-partial-accumulate': option 'split-size' must be at least 1
func.func @f(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> (!mloop.buffer<?xf32>, !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %mf = mloop.convert %m : index to f32
  %zero = mloop.constant 0.0 : f32
  %half = mloop.constant 0.5 : f32
  // Column mean: a sum whose division stays in the epilogue.
  %cs = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
    %r = mloop.reduce sum (%i) = (%c0) to (%m) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    %mean = mloop.div %r, %mf : f32
    mloop.store %mean, %cs[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  // A pointwise nest.
  %y = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    %e = mloop.exp %v : f32
    mloop.store %e, %y[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.yield
  }
  // Column max of exp(x), starting from 0.5.
  %cm = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
    %r = mloop.reduce max (%i) = (%c0) to (%m) step (%c1) init(%half) : f32 {
      %v = mloop.load %y[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %r, %cm[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return %cs, %y, %cm : !mloop.buffer<?xf32>, !mloop.buffer<?x?xf32>, !mloop.buffer<?xf32>
}

// PARTIALS-LABEL: func.func @f
// PARTIALS:       %[[K:.*]] = mloop.constant 5 : index
// PARTIALS:       %[[PER:.*]] = mloop.div %{{.*}}, %[[K]] : index
// PARTIALS:       %[[S:.*]] = mloop.max %[[PER]], %{{.*}} : index
// PARTIALS:       %[[NS:.*]] = mloop.div %{{.*}}, %[[S]] : index
// PARTIALS-NEXT:  %[[W:.*]] = mloop.alloc(%[[NS]], %n) : !mloop.buffer<?x?xf32>
// PARTIALS:         %[[SI:.*]] = mloop.div %{{.*}}, %[[S]] : index
// PARTIALS-NEXT:    mloop.accumulate sum %{{.*}}, %[[W]][%[[SI]], %{{.*}}] : !mloop.buffer<?x?xf32>

// NPART: option 'partials' expects 0, a count of partials, 'resident' or 'resident*R' (R in 1..=64), got '-1'
// NRES: option 'partials' expects 0, a count of partials, 'resident' or 'resident*R' (R in 1..=64), got 'resident*0'

// RESIDENT-LABEL: func.func @f
// RESIDENT:       %[[R:.*]] = mloop.resident_programs {assumed = 132} : index
// RESIDENT:       %[[R1:.*]] = mloop.max %[[R]], %{{.*}} : index
// RESIDENT:       %[[K:.*]] = mloop.mul %[[R1]], %{{.*}} : index
// RESIDENT:       %[[PER:.*]] = mloop.div %{{.*}}, %[[K]] : index
// RESIDENT:       %[[S:.*]] = mloop.max %[[PER]], %{{.*}} : index
// RESIDENT:       %[[NS:.*]] = mloop.div %{{.*}}, %[[S]] : index
// RESIDENT-NEXT:  %workspace = mloop.alloc(%[[NS]], %n) : !mloop.buffer<?x?xf32>
// RESIDENT:         %[[SI:.*]] = mloop.div %{{.*}}, %[[S]] : index
// RESIDENT-NEXT:    mloop.accumulate sum %{{.*}}, %workspace[%[[SI]],
