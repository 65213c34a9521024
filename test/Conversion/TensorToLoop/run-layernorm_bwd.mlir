// Layernorm backward (bf16, examples/layernorm_bwd.mlir) lowered to loops and run in the loop
// interpreter, checked against an independent NumPy evaluation (test/Run/Inputs/norm_ref.py;
// relative L2 error within 1e-2 for bf16, 1e-5 for f32). Two shapes: 37 x 100 and 256 x 384.
// REQUIRES: numpy
//
// RUN: python3 %S/../../Run/Inputs/norm_ref.py gen --kind layernorm --dtype bf16 --M 37 --N 100 --seed 1 --dir %t/A
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --lower-tensor-to-loop > %t/lowered.mlir
// RUN: morf-run %t/lowered.mlir --input x=%t/A/x.npy --input w=%t/A/w.npy --input dy=%t/A/dy.npy \
// RUN:   --input rstd=%t/A/rstd.npy --input mean=%t/A/mean.npy --output-dir %t/A/out
// RUN: python3 %S/../../Run/Inputs/norm_ref.py check --kind layernorm --dtype bf16 --inputs %t/A --outputs %t/A/out
//
// RUN: python3 %S/../../Run/Inputs/norm_ref.py gen --kind layernorm --dtype bf16 --M 256 --N 384 --seed 2 --dir %t/B
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --lower-tensor-to-loop \
// RUN:   | morf-run - --input x=%t/B/x.npy --input w=%t/B/w.npy --input dy=%t/B/dy.npy \
// RUN:   --input rstd=%t/B/rstd.npy --input mean=%t/B/mean.npy --output-dir %t/B/out
// RUN: python3 %S/../../Run/Inputs/norm_ref.py check --kind layernorm --dtype bf16 --inputs %t/B --outputs %t/B/out
