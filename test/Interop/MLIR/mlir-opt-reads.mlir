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
