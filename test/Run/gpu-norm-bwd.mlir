// Tensor-level RMSNorm and LayerNorm backward lowered by the `gpu` pipeline, run on a
// real GPU and checked output by output against the fp64 tensor interpreter, on shapes
// that hit the tails (N not a multiple of the vector width, M not a multiple of the split).
// REQUIRES: cuda
//
// RUN: morf-run %S/../../examples/rmsnorm_bwd.mlir --device gpu --check --random M=1000,N=384 --output-dir %t/a | FileCheck %s
// RUN: morf-run %S/../../examples/rmsnorm_bwd.mlir --device gpu --check --random M=37,N=100 --output-dir %t/b | FileCheck %s
// RUN: morf-run %S/../../examples/rmsnorm_bwd_f32.mlir --device gpu --check --random M=513,N=1024 --output-dir %t/c | FileCheck %s
// RUN: morf-run %S/../../examples/layernorm_bwd.mlir --device gpu --check --random M=1000,N=384 --output-dir %t/d | FileCheck %s
// RUN: morf-run %S/../../examples/layernorm_bwd_f32.mlir --device gpu --check --random M=3,N=5 --output-dir %t/e | FileCheck %s

// CHECK: check result0: rel_err={{.*}} ok
// CHECK: check result1: rel_err={{.*}} ok
// CHECK-NOT: FAILED
