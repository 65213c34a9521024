// A CTA per row that holds its row in registers while its column partials accumulate in the
// launch's dynamic shared memory (`reload=false shared-accs=true`): the registers the partials
// took are free for more CTAs a SM. Each split's start sets the thread's own columns to the
// identity; each row loads, combines and stores them back in 16-byte vectors (no barrier: no
// other thread touches them); the split's end reads them back for the workspace row.
// Measured on the H200 (docs/perf.md, twentieth session) it loses to register partials on
// both norms, so it is a tuner's point, not the heuristic's.

// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=32768,N=2048 partials=resident splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=32768,N=2048 threads=256 staged-rows=1 reload=false shared-accs=true min-ctas=4 report=true})' 2>%t.report | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// REPORT: schedule: @layernorm_bwd_k0: row_fused threads=256 threads_per_row=256 {{.*}} fast=yes(N=2048 vector=8 chunks=1 shared-accs)

// CHECK-LABEL: mgpu.func @layernorm_bwd_k0
// CHECK:         %[[SM:[0-9]+]] = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
// Each split's start: the identity in the thread's columns of both partials.
// CHECK:         mgpu.store_vec %[[ID:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[SM]][
// CHECK:         mgpu.store_vec %[[ID]], %[[ID]], %[[ID]], %[[ID]], %[[SM]][
// The row is loaded once (held: no second load of x after the barrier), then the partials
// are combined in shared memory.
// CHECK:         mgpu.load_vec %arg{{[0-9]+}}[%{{[0-9]+}}] {nc} : !mgpu.ptr<bf16>
// CHECK:         mgpu.barrier
// CHECK-NOT:     mgpu.load_vec %arg{{[0-9]+}}[%{{[0-9]+}}] {nc} : !mgpu.ptr<bf16>
// CHECK:         mgpu.load_vec %[[SM]][%{{[0-9]+}}] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
// CHECK:         mgpu.store_vec %{{.*}}, %[[SM]][
// CHECK:         mloop.yield
// The split's end: read back for the workspace row.
// CHECK:         mgpu.load_vec %[[SM]][%{{[0-9]+}}] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32

// The simulator against the interpreter: the fast form at the hinted N (odd M, several splits
// a CTA), the guarded slow form at N = 2000, and RMSNorm with two rows in flight.
// RUN: rm -rf %t && mkdir -p %t/a %t/b %t/c
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=32768,N=2048 partials=resident splits=32},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=32768,N=2048 threads=256 grid=3 reload=false shared-accs=true remat-converts=true interleave-splits=true staged-rows=1})' M=37,N=2048 1e-2 %t/a
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=32768,N=2048 partials=resident splits=32},canonicalize,cse,lower-loop-to-gpu{size-hints=M=32768,N=2048 threads=256 grid=3 reload=false shared-accs=true})' M=13,N=2000 1e-2 %t/b
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=32768,N=1024 partials=5},canonicalize,cse,lower-loop-to-gpu{size-hints=M=32768,N=1024 threads=128 threads-per-row=128 reload=false shared-accs=true rows-in-flight=2})' M=41,N=1024 1e-2 %t/c

// Without column partials (RMSNorm forward) there is nothing to keep in shared memory: said.
// RUN: morf-opt %S/../../../examples/rmsnorm_fwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=4096},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4096,N=4096 reload=false shared-accs=true report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: schedule: @rmsnorm_fwd_k0: row_fused {{.*}} fast=yes(N=4096 vector=8 chunks=2)
// NONE: note: @rmsnorm_fwd_k0: shared-accs not taken: a CTA per row keeps column partials in shared memory only where it has partials of row inputs
