// Atomics only where asked: `loop-map{atomics=true}` (or `lower-loop-to-gpu{atomics=true}` for
// the nests its templates would run on one thread) lets an f32/f64 sum/max/min accumulate that
// several parallel iterations share run in parallel, marked `{atomic}`, lowered to
// `mgpu.atomic_rmw` (PTX `red.global.add.f32`). Without the option nothing changes: the
// accumulate keeps its shared ivs in order (or the nest runs on one thread). Float sums through
// atomics are not deterministic on a GPU (the order of the additions varies); the simulator runs
// threads in order.
// REQUIRES: numpy
//
// RUN: morf-opt %s --loop-map='atomics=true' | FileCheck %s
// RUN: morf-opt %s --loop-map 2>&1 | FileCheck %s --check-prefix=DET
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-loop-to-gpu{atomics=true})' --schedule-report 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-loop-to-gpu)' --schedule-report 2>&1 | FileCheck %s --check-prefix=NOATOM
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-loop-to-gpu{atomics=true})' --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: mkdir -p %t
// The kernels agree with the interpreter on the GPU simulator:
// RUN: morf-opt %s --pass-pipeline='builtin.module(loop-map{atomics=true},lower-loop-to-gpu)' > %t/a.mlir
// RUN: morf-run %s --entry colsum --random M=37,N=5 --seed 3 --output-dir %t/ref1
// RUN: morf-run %t/a.mlir --entry colsum --device sim --random M=37,N=5 --seed 3 --output-dir %t/sim1
// RUN: python3 %S/Inputs/compare.py %t/ref1 %t/sim1 --rtol 1e-6
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-loop-to-gpu{atomics=true})' > %t/b.mlir
// RUN: morf-run %s --entry total_max --random M=300,N=3 --seed 3 --output-dir %t/ref2
// RUN: morf-run %t/b.mlir --entry total_max --device sim --random M=300,N=3 --seed 3 --output-dir %t/sim2
// RUN: python3 %S/Inputs/compare.py %t/ref2 %t/sim2 --rtol 1e-6
// A bf16 accumulate is never atomic (no 16-bit float atomics here): it keeps its ivs in order.
// RUN: morf-opt %s --loop-map='atomics=true' | FileCheck %s --check-prefix=BF16

// CHECK-LABEL: func.func @colsum
// CHECK:         mloop.accumulate sum %{{.*}}, %s[%j] {atomic} : !mloop.buffer<?xf32>
// CHECK:       } attributes {mapping = [{level = "grid"}, {level = "thread", size = 256}]}
// DET-LABEL: func.func @colsum
// DET-NOT:     {atomic}
// DET:         } attributes {mapping = [{level = "seq"}, {level = "grid"}]}
func.func @colsum(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?xf32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %s = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.fill %z, %s : !mloop.buffer<?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.accumulate sum %v, %s[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return %s : !mloop.buffer<?xf32>
}

// The largest element of each row's total into one place: no iv indexes the accumulate.
// CHECK-LABEL: func.func @total_max
// CHECK:         mloop.accumulate max %{{.*}}, %t[%c0] {atomic} : !mloop.buffer<?xf32>
// DET-LABEL: func.func @total_max
// DET-NOT:     {atomic}
// DET-NOT:     mapping
// GPU: schedule: @colsum_k0: mapped {{.*}} atomic accumulates=1 (not deterministic) (from lower-loop-to-gpu's fallback
// GPU: schedule: @total_max_k0: mapped {{.*}} atomic accumulates=1 (not deterministic) (from lower-loop-to-gpu's fallback to loop-map's strategy
// GPU-LABEL: mgpu.func @total_max_k0
// GPU:         mgpu.atomic_rmw max
// NOATOM: schedule: @total_max_k0: sequential
// NOATOM-NOT:  mgpu.atomic_rmw
// PTX-LABEL: .entry total_max_k0
// PTX:         atom.global.cas.b32
func.func @total_max(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?xf32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c1b = mloop.constant 1 : index
  %lo = mloop.constant 0xFF800000 : f32
  %z = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %t = mloop.alloc(%c1b) : !mloop.buffer<?xf32>
  mloop.fill %lo, %t : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.accumulate max %r, %t[%c0] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return %t : !mloop.buffer<?xf32>
}

// DET-LABEL: func.func @colsum_bf16
// BF16-LABEL: func.func @colsum_bf16
// BF16-NOT:     {atomic}
// BF16:         } attributes {mapping = [{level = "seq"}, {level = "grid"}]}
func.func @colsum_bf16(%x: !mloop.buffer<?x?xbf16> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?xbf16> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %z = mloop.constant 0.0 : bf16
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xbf16>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xbf16>
  %s = mloop.alloc(%n) : !mloop.buffer<?xbf16>
  mloop.fill %z, %s : !mloop.buffer<?xbf16>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xbf16>
    mloop.accumulate sum %v, %s[%j] : !mloop.buffer<?xbf16>
    mloop.yield
  }
  return %s : !mloop.buffer<?xbf16>
}
