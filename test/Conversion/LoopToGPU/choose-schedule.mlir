// gpu-choose-schedule: writes the schedule lower-loop-to-gpu's heuristic picks for each
// top-level nest as a morf.schedule dictionary on the nest (entries sorted by name).
// RUN: morf-opt %s --split-input-file --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,gpu-choose-schedule)' | FileCheck %s
// The options are lower-loop-to-gpu's.
// RUN: morf-opt %s --split-input-file --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,gpu-choose-schedule{threads=128 grid=5 split-rows=64})' | FileCheck %s --check-prefix=OPT
//
// Choosing first and lowering gives the IR of lowering alone (the attribute is honoured and
// holds the heuristic's choice), here and on the examples (row-fused kernels, with and
// without the register-resident fast path).
// RUN: mkdir -p %t
// RUN: morf-opt %s --split-input-file --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,lower-loop-to-gpu)' > %t/a.mlir
// RUN: morf-opt %s --split-input-file --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,gpu-choose-schedule,lower-loop-to-gpu)' > %t/b.mlir
// RUN: diff %t/a.mlir %t/b.mlir
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu > %t/c.mlir
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},canonicalize,cse,invariant-divisor-to-reciprocal,gpu-choose-schedule,lower-loop-to-gpu)' > %t/d.mlir
// RUN: diff %t/c.mlir %t/d.mlir
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=4096,N=384})' > %t/e.mlir
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,gpu-choose-schedule{size-hints=M=4096,N=384},lower-loop-to-gpu)' > %t/f.mlir
// RUN: diff %t/e.mlir %t/f.mlir
// RUN: FileCheck %s --check-prefix=FAST < %t/f.mlir
// FAST: morf.schedule = "RowFused {{.*}} fast: N=384

// Row reduction: a warp per row, 8 rows per CTA of 256 threads.
// CHECK-LABEL: func.func @rowsum
// CHECK: mloop.parallel
// CHECK: } attributes {morf.schedule = {mapping = "row_reduction", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 8, stream_loads = 1, threads = 256, threads_per_row = 32, vector = 4}}
// OPT-LABEL: func.func @rowsum
// OPT: morf.schedule = {mapping = "row_reduction", max_grid = 5, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 4, stream_loads = 1, threads = 128, threads_per_row = 32, vector = 4}
func.func @rowsum(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> tensor<?xf32> {
  %s = mtensor.reduce sum %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Pointwise: a thread per point (bf16: 8 elements per 16-byte vector).
// CHECK-LABEL: func.func @add
// CHECK: mloop.parallel
// CHECK: } attributes {morf.schedule = {mapping = "thread_per_point", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 1, threads = 256, threads_per_row = 1, vector = 8}}
// OPT-LABEL: func.func @add
// OPT: morf.schedule = {mapping = "thread_per_point", max_grid = 5, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 1, threads = 128, threads_per_row = 1, vector = 8}
func.func @add(%a: tensor<?x?xbf16> {morf.dims = ["M", "N"]}, %b: tensor<?x?xbf16> {morf.dims = ["M", "N"]}) -> tensor<?x?xbf16> {
  %s = mtensor.add %a, %b : tensor<?x?xbf16>
  return %s : tensor<?x?xbf16>
}

// -----

// Column reduction: split-K, the partial launch's schedule with the final launch's as the
// entry `final`.
// CHECK-LABEL: func.func @colsum
// CHECK: mloop.parallel
// CHECK: } attributes {morf.schedule = {final = {mapping = "final_reduction", max_grid = 528, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 64, threads = 512, threads_per_row = 8, vector = 4}, mapping = "split_partial", max_grid = 1056, partials = "none", rows_in_flight_per_warp = 1, rows_per_cta = 1, split_rows = 256, stream_loads = 1, threads = 256, threads_per_row = 1, vector = 4}}
// OPT-LABEL: func.func @colsum
// OPT: morf.schedule = {final = {mapping = "final_reduction", max_grid = 5, {{.*}} rows_per_cta = 16, threads = 128, threads_per_row = 8, vector = 4}, mapping = "split_partial", max_grid = 5, {{.*}} split_rows = 64, stream_loads = 1, threads = 128,
func.func @colsum(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> tensor<?xf32> {
  %s = mtensor.reduce sum %a dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}
