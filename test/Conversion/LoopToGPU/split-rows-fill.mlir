// A split-K column reduction's rows a block: the schedule's `split_rows` is the least, and the
// host raises it until the blocks fit the threads the device holds at once, one wave of the
// partial kernel (`mgpu.resident_blocks` of it): S = max(split_rows, ceil(M / fit)), fit =
// max(1, resident CTAs x threads x columns a thread / N), blocks = ceil(M / S). The kernel
// takes S as an argument. RMSNorm backward's dw, unfused, hinted M=40, N=96: split_rows is 32,
// and a thread takes 8 columns of a block (2048 columns a CTA of 256).
// REQUIRES: numpy
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=40,N=96 | FileCheck %s
// CHECK:      %[[RB:.*]] = mgpu.resident_blocks @rmsnorm_bwd_k1 threads(%{{.*}}) shared(%{{.*}})
// CHECK-NEXT: %[[COLS:.*]] = mloop.constant 2048 : index
// CHECK-NEXT: %[[T:.*]] = mloop.mul %[[RB]], %[[COLS]] : index
// CHECK-NEXT: %[[F:.*]] = mloop.div %[[T]], %[[N:.*]] : index
// CHECK-NEXT: %[[FIT:.*]] = mloop.max %[[F]], %{{.*}} : index
// CHECK:      %[[SFIT:.*]] = mloop.div %{{.*}}, %[[FIT]] : index
// CHECK-NEXT: %[[S:.*]] = mloop.max %[[MIN:.*]], %[[SFIT]] : index
// CHECK:      %[[B:.*]] = mloop.max %{{.*}}, %{{.*}} : index
// CHECK:      %split_ws = mloop.alloc(%[[B]], %[[N]]) : !mloop.buffer<?x?xf32>
// CHECK:      mgpu.launch @rmsnorm_bwd_k1 {{.*}} args(%[[N]], %split_ws, %[[B]], %[[S]],
//
// `split-rows=N` fixes S (no occupancy query, the rows a constant of the kernel):
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=40,N=96 split-rows=16})' | FileCheck %s --check-prefix=FIXED
// FIXED-NOT: mgpu.resident_blocks
// FIXED: mgpu.func @rmsnorm_bwd_k1(
// FIXED: mloop.constant 16 : index
//
// Raised S on the simulator against the interpreter: the occupancy query replaced by one CTA
// (fit = 2048 / 96 = 21 blocks), so that M = 1000 takes S = max(32, ceil(1000 / 21)) = 48 rows
// a block, 21 blocks, the last of 40 rows (RMSNorm backward); LayerNorm backward in f32, whose
// db is a second reduce of the partial, takes 4 columns a thread: fit = 1024 / 96 = 10 blocks
// of S = 100 rows.
// RUN: rm -rf %t && mkdir -p %t/ref %t/sim %t/lref %t/lsim
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=40,N=96 | sed -e 's/mgpu.resident_blocks @[a-z_0-9]* threads([^)]*) shared([^)]*)/mloop.constant 1 : index/' > %t/one.mlir
// RUN: morf-run %S/../../../examples/rmsnorm_bwd.mlir --random M=1000,N=96 --seed 3 --output-dir %t/ref > /dev/null
// RUN: morf-run %t/one.mlir --device sim --random M=1000,N=96 --seed 3 --output-dir %t/sim > /dev/null
// RUN: python3 %S/Inputs/compare.py %t/ref %t/sim --rtol 1e-2
// RUN: morf-opt %S/../../../examples/layernorm_bwd_f32.mlir --pipeline=gpu-unfused --size-hints M=40,N=96 | sed -e 's/mgpu.resident_blocks @[a-z_0-9]* threads([^)]*) shared([^)]*)/mloop.constant 1 : index/' > %t/lone.mlir
// RUN: morf-run %S/../../../examples/layernorm_bwd_f32.mlir --random M=1000,N=96 --seed 3 --output-dir %t/lref > /dev/null
// RUN: morf-run %t/lone.mlir --device sim --random M=1000,N=96 --seed 3 --output-dir %t/lsim > /dev/null
// RUN: python3 %S/Inputs/compare.py %t/lref %t/lsim --rtol 1e-5
