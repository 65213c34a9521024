// RMSNorm backward (bf16) through the `fuse` pipeline (lowering, fusion, cleanups), run in the
// loop interpreter and checked against an independent NumPy evaluation
// (test/Run/Inputs/norm_ref.py). The fused kernels run at a size hint of 576000 x 384 and
// at the small run sizes.
// REQUIRES: numpy
//
// RUN: python3 %S/../Run/Inputs/norm_ref.py gen --kind rmsnorm --dtype bf16 --M 300 --N 100 --seed 3 --dir %t/A
// RUN: morf-opt --pipeline=fuse %S/../../examples/rmsnorm_bwd.mlir | FileCheck %s
// RUN: morf-opt --pipeline=fuse %S/../../examples/rmsnorm_bwd.mlir \
// RUN:   | morf-run - --input x=%t/A/x.npy --input w=%t/A/w.npy --input dy=%t/A/dy.npy \
// RUN:   --input rstd=%t/A/rstd.npy --output-dir %t/A/out
// RUN: python3 %S/../Run/Inputs/norm_ref.py check --kind rmsnorm --dtype bf16 --inputs %t/A --outputs %t/A/out
//
// RUN: python3 %S/../Run/Inputs/norm_ref.py gen --kind layernorm --dtype bf16 --M 130 --N 64 --seed 4 --dir %t/B
// RUN: morf-opt --pipeline=fuse %S/../../examples/layernorm_bwd.mlir \
// RUN:   | morf-run - --input x=%t/B/x.npy --input w=%t/B/w.npy --input dy=%t/B/dy.npy \
// RUN:   --input rstd=%t/B/rstd.npy --input mean=%t/B/mean.npy --output-dir %t/B/out
// RUN: python3 %S/../Run/Inputs/norm_ref.py check --kind layernorm --dtype bf16 --inputs %t/B --outputs %t/B/out

// CHECK: kind = "row-fused"
// CHECK: kind = "final"
