// morf's generic form is upstream MLIR: upstream `mlir-opt --allow-unregistered-dialect`
// reads every example and its loop- and GPU-level lowerings, and what it prints reads back
// into morf as the same IR (the same custom text, up to value names, which mlir-opt
// renumbers).
//
// REQUIRES: mlir-opt
// RUN: M=${MORF_MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}; \
// RUN: for f in %S/../../examples/*.mlir; do \
// RUN:   for p in none fuse gpu; do \
// RUN:     if [ $p = none ]; then morf-opt $f > %t.a; else morf-opt $f --pipeline=$p > %t.a; fi && \
// RUN:     morf-opt %t.a --print-op-generic | $M --allow-unregistered-dialect --mlir-print-op-generic > %t.m && \
// RUN:     morf-opt %t.m > %t.b && \
// RUN:     sed -E 's/%%[A-Za-z0-9_#]+//g' %t.a > %t.a2 && sed -E 's/%%[A-Za-z0-9_#]+//g' %t.b > %t.b2 && \
// RUN:     diff %t.a2 %t.b2 || { echo "mismatch: $f ($p)"; exit 1; }; \
// RUN:   done; \
// RUN: done
