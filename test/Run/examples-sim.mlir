// The mixed-order examples beyond the norms compiled by the `gpu` pipeline and run on the
// CPU simulator, each output checked against the fp64 interpreter (1e-5 for f32 outputs,
// 1e-2 for bf16 ones), at small shapes with tails (N not a multiple of the vector width,
// rows not a multiple of the split).
//
// RUN: morf-run %S/../../examples/softmax_fwd_colsum.mlir --device sim --random M=64,N=96 --check --output-dir %t/a 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/softmax_fwd_colsum.mlir --device sim --random M=37,N=100 --check --output-dir %t/b 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/logsoftmax_bwd_colsum.mlir --device sim --random M=64,N=96 --check --output-dir %t/c 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/logsoftmax_bwd_colsum.mlir --device sim --random M=37,N=100 --check --output-dir %t/d 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/colmax_rowsum.mlir --device sim --random M=64,N=96 --check --output-dir %t/e 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/colmax_rowsum.mlir --device sim --random M=37,N=100 --check --output-dir %t/f 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/reduce3d.mlir --device sim --random B=4,M=16,N=96 --check --output-dir %t/g 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/reduce3d.mlir --device sim --random B=3,M=13,N=100 --check --output-dir %t/h 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/two_norms_shared_weight.mlir --device sim --random M=64,K=48,N=96 --check --output-dir %t/i 2>&1 | FileCheck %s --check-prefix=THREE
// RUN: morf-run %S/../../examples/two_norms_shared_weight.mlir --device sim --random M=37,K=5,N=100 --check --output-dir %t/j 2>&1 | FileCheck %s --check-prefix=THREE
//
// CHECK: ran {{[1-9][0-9]*}} kernel launch{{(es)?}} on the GPU simulator
// CHECK-NEXT: check result0: rel_err={{.*}} ok
// CHECK-NEXT: check result1: rel_err={{.*}} ok
// CHECK-NOT: check
//
// THREE: ran {{[1-9][0-9]*}} kernel launch{{(es)?}} on the GPU simulator
// THREE-NEXT: check result0: rel_err={{.*}} ok
// THREE-NEXT: check result1: rel_err={{.*}} ok
// THREE-NEXT: check result2: rel_err={{.*}} ok
// THREE-NOT: check
