// `--device auto` compiles the tensor-level function end to end (the `gpu` pipeline and PTX
// emission) and runs the kernels on the GPU when a CUDA driver is present, else on the CPU
// simulator; `--check` compares every output with the fp64 interpreter. This is the
// README's main command, at a small size.
//
// RUN: morf-run %S/../../examples/rmsnorm_bwd.mlir --device auto --random M=37,N=100 --check --output-dir %t 2>&1 | FileCheck %s
// RUN: morf-run %S/../../examples/layernorm_bwd_f32.mlir --device auto --random M=7,N=33 --check --output-dir %t 2>&1 | FileCheck --check-prefix=LN %s
// RUN: not morf-run %S/../../examples/rmsnorm_bwd.mlir --device tpu --random M=1,N=1 2>&1 | FileCheck --check-prefix=BAD %s
//
// CHECK: result0: !mloop.buffer<?x?xbf16> [37, 100] -> {{.*}}result0.npy
// CHECK: result1: !mloop.buffer<?xbf16> [100] -> {{.*}}result1.npy
// CHECK: check result0: rel_err={{.*}} (tol 1e-02) ok
// CHECK: check result1: rel_err={{.*}} (tol 1e-02) ok
//
// LN: check result0: rel_err={{.*}} (tol 1e-05) ok
// LN: check result1: rel_err={{.*}} (tol 1e-05) ok
// LN: check result2: rel_err={{.*}} (tol 1e-05) ok
//
// BAD: morf-run: error: unknown --device 'tpu' (expected interp, sim, gpu or auto)
