// LayerNorm backward (f32, examples/layernorm_bwd_f32.mlir) on the interpreter, checked
// against an independent NumPy evaluation (Inputs/norm_ref.py; relative L2 error
// within 1e-2 for bf16, 1e-5 for f32).
// Two shapes: an odd one (37 x 100) and a larger one (256 x 384).
// REQUIRES: numpy
//
// RUN: python3 %S/Inputs/norm_ref.py gen --kind layernorm --dtype f32 --M 37 --N 100 --seed 1 --dir %t/A
// RUN: morf-run %S/../../examples/layernorm_bwd_f32.mlir --input x=%t/A/x.npy --input w=%t/A/w.npy \
// RUN:   --input dy=%t/A/dy.npy --input mean=%t/A/mean.npy --input rstd=%t/A/rstd.npy --output-dir %t/A/out \
// RUN:   | FileCheck --check-prefix=A %s
// RUN: python3 %S/Inputs/norm_ref.py check --kind layernorm --dtype f32 --inputs %t/A --outputs %t/A/out
//
// RUN: python3 %S/Inputs/norm_ref.py gen --kind layernorm --dtype f32 --M 256 --N 384 --seed 2 --dir %t/B
// RUN: morf-run %S/../../examples/layernorm_bwd_f32.mlir --input x=%t/B/x.npy --input w=%t/B/w.npy \
// RUN:   --input dy=%t/B/dy.npy --input mean=%t/B/mean.npy --input rstd=%t/B/rstd.npy --output-dir %t/B/out \
// RUN:   | FileCheck --check-prefix=B %s
// RUN: python3 %S/Inputs/norm_ref.py check --kind layernorm --dtype f32 --inputs %t/B --outputs %t/B/out

// A:      result0: tensor<?x?xf32> [37, 100] -> {{.*}}/A/out/result0.npy
// A-NEXT: result1: tensor<?xf32> [100] -> {{.*}}/A/out/result1.npy
// A-NEXT: result2: tensor<?xf32> [100] -> {{.*}}/A/out/result2.npy
// B:      result0: tensor<?x?xf32> [256, 384] -> {{.*}}/B/out/result0.npy
// B-NEXT: result1: tensor<?xf32> [384] -> {{.*}}/B/out/result1.npy
// B-NEXT: result2: tensor<?xf32> [384] -> {{.*}}/B/out/result2.npy
