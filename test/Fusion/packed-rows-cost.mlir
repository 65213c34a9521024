// The cost model prices packed rows (a thread per short row loading P rows with one 16-byte
// access of each row input): a split takes P times fewer steps, each with P rows in flight.
// Priced as one row a step, the row kernel of a column sum at N = 1 looked slower than three
// launches, and the search left softmax_bwd_colsum unfused: 127.0 us on the H200 against 34.9
// fused (docs/perf.md, thirtieth session). At N = 2 it predicts RMSNorm backward within a few
// percent of the H200's 44.7 us (75.5 us before). The model sizes the row form's vectors by
// the widest element accessed by column (as the lowering does), not by a per-row f32 scalar
// such as rstd: priced with 4-byte elements, RMSNorm backward at 8388608 x 10 bf16 took lanes
// instead of a thread per row, 566.7 us fused, and the search left the column sum to its own
// launches (491.7 us predicted; the lowering's thread per row ran 60.6 us at 2097152 x 10 on
// an H100, thirty-first session).
// RUN: morf-opt %S/../../examples/softmax_bwd_colsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=1 report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=N1
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=2 report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=N2
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident size-hints=M=8388608,N=10 report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=N10

// N1: chosen plan: rowfused.persistent[nest0 + nest1 + partial(nest2, S={{[0-9]+}})] ; final(nest2, S={{[0-9]+}})
// N1: #1 {{[0-9.]+}} us | 1 launches
// N1: {{[0-9.]+}} us | 3 launches

// N2: chosen plan: rowfused.persistent[nest0 + nest1 + partial(nest2, S={{[0-9]+}})]
// N2: #1 4{{[0-9]}}.{{[0-9]}} us | 1 launches

// N10: chosen plan: rowfused.persistent[nest0 + nest1 + partial(nest2, S={{[0-9]+}})] ; final(nest2, S={{[0-9]+}})
// N10: #1 1{{[0-9][0-9]}}.{{[0-9]}} us | 1 launches | {{.*}} | {{[7-9][0-9]}}.{{[0-9]}}% of floor <- chosen
