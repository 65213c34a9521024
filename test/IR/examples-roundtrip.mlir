// Every example, and its loop-level and GPU-level lowerings, prints to a fixed point in
// both forms: print(parse(print(x))) == print(x), custom and generic, and the generic form
// reads back to the same custom text.
//
// RUN: for f in %S/../../examples/*.mlir; do \
// RUN:   morf-opt $f > %t.c1 && morf-opt %t.c1 > %t.c2 && diff %t.c1 %t.c2 && \
// RUN:   morf-opt $f --print-op-generic > %t.g1 && morf-opt %t.g1 --print-op-generic > %t.g2 && diff %t.g1 %t.g2 && \
// RUN:   morf-opt %t.g1 > %t.c3 && diff %t.c1 %t.c3 || exit 1; \
// RUN: done
// RUN: for f in %S/../../examples/rmsnorm_bwd.mlir %S/../../examples/layernorm_bwd_f32.mlir; do \
// RUN:   for p in fuse gpu; do \
// RUN:     morf-opt $f --pipeline=$p > %t.l1 && morf-opt %t.l1 > %t.l2 && diff %t.l1 %t.l2 && \
// RUN:     morf-opt %t.l1 --print-op-generic > %t.lg1 && morf-opt %t.lg1 --print-op-generic > %t.lg2 && diff %t.lg1 %t.lg2 && \
// RUN:     morf-opt %t.lg1 > %t.l3 && diff %t.l1 %t.l3 || exit 1; \
// RUN:   done; \
// RUN: done
