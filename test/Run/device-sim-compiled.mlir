// `--device sim` on a tensor-level file compiles it through the `gpu` pipeline (and PTX
// emission) and runs the host function with each `mgpu.launch` on the CPU simulator; it
// says how many launches ran, and `--check` compares the outputs with the fp64
// interpreter. (It used to run the interpreter alone, with no kernel at all.)
//
// RUN: morf-run %S/../../examples/rmsnorm_bwd.mlir --device sim --random M=37,N=100 --check --output-dir %t/a 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/layernorm_bwd_f32.mlir --device sim --random M=7,N=33 --output-dir %t/b 2>&1 | FileCheck --check-prefix=LN %s
//
// CHECK: result0: !mloop.buffer<?x?xbf16> [37, 100] -> {{.*}}a/result0.npy
// CHECK: result1: !mloop.buffer<?xbf16> [100] -> {{.*}}a/result1.npy
// CHECK: ran {{[1-9][0-9]*}} kernel launch{{(es)?}} on the GPU simulator
// CHECK: check result0: rel_err={{.*}} (tol 1e-02) ok
// CHECK: check result1: rel_err={{.*}} (tol 1e-02) ok
//
// LN: result0: !mloop.buffer
// LN: ran {{[1-9][0-9]*}} kernel launch{{(es)?}} on the GPU simulator
// LN-NOT: check result
