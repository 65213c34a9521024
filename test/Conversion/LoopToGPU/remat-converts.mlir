// Widenings redone after a barrier (`remat-converts=true`, a tuner knob; off by default): a
// register-resident CTA per row loads its row as bf16 and widens it to f32 for the row sum;
// each use after the row reduction's barrier gets its own widening (and the cheap f32
// arithmetic between them, as dy * w), marked `morf.remat`, which the PTX emitter draws from
// the loaded 32-bit word with `prmt`. ptxas then keeps the packed words across the barrier, not
// one f32 register per element (RMSNorm backward at 16384 x 8192, 256 threads: 128 registers
// and no spill for two CTAs a SM, against 112 bytes of spills without it).
// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=32768,N=4096 partials=resident splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=32768,N=4096 staged-rows=1 rows-in-flight=1 remat-converts=true})' | FileCheck %s
// CHECK-LABEL: mgpu.func @rmsnorm_bwd_k0(
// CHECK:       mloop.convert %{{.*}} : bf16 to f32
// CHECK-NOT:   morf.remat
// CHECK:       mgpu.barrier
// CHECK:       %[[W:.*]] = mloop.convert %{{.*}} {morf.remat} : bf16 to f32
// CHECK-NEXT:  mloop.mul %[[W]], %{{.*}} : f32
// CHECK:       mgpu.grid_barrier
//
// The PTX loads 16-byte vectors of words, the barrier, then each half widened from its word
// (low half 0x1044, high half 0x3244: the bf16 bits above 16 zero bits).
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=32768,N=4096 partials=resident splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=32768,N=4096 staged-rows=1 rows-in-flight=1 remat-converts=true})' --emit=ptx | FileCheck %s --check-prefix=PTX
// PTX:       ld.global.nc.v4.b32 {%r{{[0-9]+}},
// PTX:       cvt.f32.bf16
// PTX:       bar.sync 0;
// PTX:       prmt.b32 %f{{[0-9]+}}, %r{{[0-9]+}}, 0, 0x1044;
// PTX:       prmt.b32 %f{{[0-9]+}}, %r{{[0-9]+}}, 0, 0x3244;
//
// Off by default: no widening is redone.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=32768,N=4096 partials=resident splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=32768,N=4096 staged-rows=1 rows-in-flight=1})' --emit=ptx | FileCheck %s --check-prefix=OFF
// OFF-NOT:   prmt.b32
//
// The same results on the simulator (against the interpreter): both norms with a CTA per row
// at N = 4096 and 8192 (interleaved splits), LayerNorm at N = 1000 (a guarded tail), and a
// warp per row at N = 1024 (redone after its warp reduction).
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=301,N=4096 partials=resident splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=301,N=4096 staged-rows=1 rows-in-flight=1 interleave-splits=true grid=3 remat-converts=true})' M=301,N=4096 1e-2 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=77,N=8192 partials=resident splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=77,N=8192 staged-rows=1 rows-in-flight=1 interleave-splits=true grid=3 remat-converts=true chunk-major=true})' M=77,N=8192 1e-2 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=203,N=1000},canonicalize,cse,lower-loop-to-gpu{size-hints=M=203,N=1000 threads-per-row=256 grid=3 remat-converts=true})' M=203,N=1000 1e-2 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=301,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=301,N=1024 grid=3 remat-converts=true})' M=301,N=1024 1e-2 %t
//
// A warp per row: the widenings are redone after the warp reduction.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 rows-in-flight=1 remat-converts=true})' | FileCheck %s --check-prefix=WARP
// WARP-LABEL: mgpu.func @rmsnorm_bwd_k0(
// WARP-NOT:   morf.remat
// WARP:       mgpu.warp_reduce sum
// WARP:       mloop.convert %{{.*}} {morf.remat} : bf16 to f32
//
// The schedule report: a forced min-ctas under the row's estimated registers is said, with
// what the packed loads would need; with remat-converts it fits, and nothing is said.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192 partials=resident splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=16384,N=8192 staged-rows=1 rows-in-flight=1 min-ctas=2 report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPILL
// SPILL: note: @rmsnorm_bwd_k0: min-ctas=2: 2 CTA(s) of 256 threads a SM cap a thread at 128 registers, under the ~{{[0-9]+}} its row is estimated to hold: ptxas may spill; remat-converts=true would hold its loads packed (about {{[0-9]+}} registers)
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192 partials=resident splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=16384,N=8192 staged-rows=1 rows-in-flight=1 min-ctas=2 remat-converts=true report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FITS
// FITS: schedule: @rmsnorm_bwd_k0: row_fused
// FITS-NOT: min-ctas=2
//
// The option takes true or false; anything else is an error, exit 1.
// RUN: not morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{remat-converts=maybe})' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: option 'remat-converts' expects true or false, got 'maybe'
