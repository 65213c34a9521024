// Upstream mlir-opt (LLVM 22) parses and verifies what --emit=mlir prints for every example
// at the tensor, loop and GPU levels (MLIR's own verifier already ran in process).
//
// REQUIRES: mlir, mlir-opt
// RUN: M=${MORF_MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}; \
// RUN: for f in %S/../../../examples/*.mlir; do \
// RUN:   for p in none fuse gpu; do \
// RUN:     if [ $p = none ]; then morf-opt $f --emit=mlir > %t.m; else morf-opt $f --pipeline=$p --emit=mlir > %t.m; fi && \
// RUN:     $M %t.m > /dev/null || { echo "mlir-opt rejects: $f ($p)"; exit 1; }; \
// RUN:   done; \
// RUN: done
// And a work loop's export (splits from a work counter: an scf.while, an scf.execute_region,
// the ticket's atomics), at the GPU level of a row kernel with `dynamic-splits`:
// RUN: morf-opt %S/../../Run/gpu-sim-work-loop.mlir --emit=mlir > %t.w && ${MORF_MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt} %t.w > /dev/null
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=200 partials=resident},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=200 dynamic-splits=true resident-splits=4})' --emit=mlir > %t.d && ${MORF_MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt} %t.d > /dev/null
