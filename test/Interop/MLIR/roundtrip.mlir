// Every example, exported to upstream MLIR and imported back, computes bit for bit what the
// original computes on the interpreter (same random inputs); upstream mlir-opt reads each
// export, at the tensor, loop (after --pipeline=fuse) and GPU (after --pipeline=gpu) levels.
//
// REQUIRES: mlir
// RUN: for f in %S/../../../examples/*.mlir; do \
// RUN:   b=$(basename $f .mlir); \
// RUN:   dims=$(grep -o 'morf.dims = \[[^]]*\]' $f | grep -o '"[A-Za-z]*"' | tr -d '"' | sort -u); \
// RUN:   spec=$(for d in $dims; do printf '%%s=%%s,' $d 13; done); spec=${spec%%,}; \
// RUN:   morf-opt $f --emit=mlir > %t.$b.linalg.mlir && \
// RUN:   morf-run $f --random "$spec" --seed 5 --output-dir %t.$b.a > /dev/null && \
// RUN:   morf-run --import=mlir %t.$b.linalg.mlir --random "$spec" --seed 5 --output-dir %t.$b.b > /dev/null && \
// RUN:   for x in %t.$b.a/*.npy; do cmp $x %t.$b.b/$(basename $x) || { echo "mismatch: $b $x"; exit 1; }; done; \
// RUN: done
// RUN: echo ok | FileCheck %s
// CHECK: ok
