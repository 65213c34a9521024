// LayerNorm forward (bf16, examples/layernorm_fwd.mlir) on the interpreter, checked against an
// independent NumPy evaluation (Inputs/norm_ref.py check-fwd; y within 1e-2, the
// f32 statistics within 1e-5). Two shapes: 37 x 100 and 256 x 384.
// REQUIRES: numpy
//
// RUN: python3 %S/Inputs/norm_ref.py gen --kind layernorm --dtype bf16 --M 37 --N 100 --seed 3 --dir %t/A
// RUN: morf-run %S/../../examples/layernorm_fwd.mlir --input x=%t/A/x.npy --input w=%t/A/w.npy --input b=%t/A/b.npy \
// RUN:   --output-dir %t/A/out | FileCheck --check-prefix=A %s
// RUN: python3 %S/Inputs/norm_ref.py check-fwd --kind layernorm --dtype bf16 --inputs %t/A --outputs %t/A/out
//
// RUN: python3 %S/Inputs/norm_ref.py gen --kind layernorm --dtype bf16 --M 256 --N 384 --seed 4 --dir %t/B
// RUN: morf-run %S/../../examples/layernorm_fwd.mlir --input x=%t/B/x.npy --input w=%t/B/w.npy --input b=%t/B/b.npy \
// RUN:   --output-dir %t/B/out | FileCheck --check-prefix=B %s
// RUN: python3 %S/Inputs/norm_ref.py check-fwd --kind layernorm --dtype bf16 --inputs %t/B --outputs %t/B/out

// A:      result0: tensor<?x?xbf16> [37, 100] -> {{.*}}/A/out/result0.npy
// A-NEXT: result1: tensor<?xf32> [37] -> {{.*}}/A/out/result1.npy
// A-NEXT: result2: tensor<?xf32> [37] -> {{.*}}/A/out/result2.npy
// B:      result0: tensor<?x?xbf16> [256, 384] -> {{.*}}/B/out/result0.npy
// B-NEXT: result1: tensor<?xf32> [256] -> {{.*}}/B/out/result1.npy
// B-NEXT: result2: tensor<?xf32> [256] -> {{.*}}/B/out/result2.npy
