// RMSNorm backward (bf16, examples/rmsnorm_bwd.mlir) on the interpreter, checked
// against an independent NumPy evaluation (Inputs/norm_ref.py; relative L2 error
// within 1e-2 for bf16, 1e-5 for f32).
// Two shapes: an odd one (37 x 100) and a larger one (256 x 384).
// REQUIRES: numpy
//
// RUN: python3 %S/Inputs/norm_ref.py gen --kind rmsnorm --dtype bf16 --M 37 --N 100 --seed 1 --dir %t/A
// RUN: morf-run %S/../../examples/rmsnorm_bwd.mlir --input x=%t/A/x.npy --input w=%t/A/w.npy \
// RUN:   --input dy=%t/A/dy.npy --input rstd=%t/A/rstd.npy --output-dir %t/A/out \
// RUN:   | FileCheck --check-prefix=A %s
// RUN: python3 %S/Inputs/norm_ref.py check --kind rmsnorm --dtype bf16 --inputs %t/A --outputs %t/A/out
//
// RUN: python3 %S/Inputs/norm_ref.py gen --kind rmsnorm --dtype bf16 --M 256 --N 384 --seed 2 --dir %t/B
// RUN: morf-run %S/../../examples/rmsnorm_bwd.mlir --input x=%t/B/x.npy --input w=%t/B/w.npy \
// RUN:   --input dy=%t/B/dy.npy --input rstd=%t/B/rstd.npy --output-dir %t/B/out \
// RUN:   | FileCheck --check-prefix=B %s
// RUN: python3 %S/Inputs/norm_ref.py check --kind rmsnorm --dtype bf16 --inputs %t/B --outputs %t/B/out

// A:      result0: tensor<?x?xbf16> [37, 100] -> {{.*}}/A/out/result0.npy
// A-NEXT: result1: tensor<?xbf16> [100] -> {{.*}}/A/out/result1.npy
// B:      result0: tensor<?x?xbf16> [256, 384] -> {{.*}}/B/out/result0.npy
// B-NEXT: result1: tensor<?xbf16> [384] -> {{.*}}/B/out/result1.npy
