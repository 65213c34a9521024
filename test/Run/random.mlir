// morf-run --random: generated inputs sized by the `morf.dims` names, deterministic
// for a seed, mixed with --input files (files win), and `morf.random = "positive"`
// giving values in [0.5, 2.0). The function echoes its arguments, so the results are
// the generated inputs.
//
// RUN: morf-run %s --random M=5,N=7 --output-dir %t/a -v | FileCheck %s
// RUN: morf-run %s --random M=5,N=7 --output-dir %t/b
// RUN: cmp %t/a/result0.npy %t/b/result0.npy
// RUN: cmp %t/a/result1.npy %t/b/result1.npy
// RUN: morf-run %s --random M=5,N=7 --seed 1 --output-dir %t/c
// RUN: not cmp -s %t/a/result0.npy %t/c/result0.npy
//
// A file binds M and N for the generated arguments; the bf16 values round-trip exactly.
// RUN: morf-run %s --input x=%t/a/result0.npy --random '' --output-dir %t/d \
// RUN:   | FileCheck --check-prefix=MIX %s
// RUN: cmp %t/a/result0.npy %t/d/result0.npy
// RUN: morf-run %s --input x=%t/a/result0.npy --random N=7 --output-dir %t/e
//
// The examples run with --random alone.
// RUN: morf-run %S/../../examples/rmsnorm_bwd.mlir --random M=64,N=96 --output-dir %t/rms \
// RUN:   | FileCheck --check-prefix=RMS %s
// RUN: morf-run %S/../../examples/layernorm_bwd.mlir --random M=33,N=65 --seed 7 --output-dir %t/ln \
// RUN:   | FileCheck --check-prefix=LN %s

func.func @echo(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                %r: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"},
                %s: tensor<3xf64>)
    -> (tensor<?x?xbf16>, tensor<?xf32>, tensor<3xf64>) {
  return %x, %r, %s : tensor<?x?xbf16>, tensor<?xf32>, tensor<3xf64>
}

// CHECK:      result0: tensor<?x?xbf16> [5, 7] -> {{.*}}/a/result0.npy min=-{{.*}} max={{[0-9].*}} mean=
// CHECK-NEXT: result1: tensor<?xf32> [5] -> {{.*}}/a/result1.npy min={{([5-9]\.[0-9]+e-1|1\.[0-9]+e0)}} max={{([5-9]\.[0-9]+e-1|1\.[0-9]+e0)}} mean=
// CHECK-NEXT: result2: tensor<3xf64> [3] -> {{.*}}/a/result2.npy
// CHECK-NEXT: @echo ran in

// MIX:      result0: tensor<?x?xbf16> [5, 7]
// MIX-NEXT: result1: tensor<?xf32> [5]
// MIX-NEXT: result2: tensor<3xf64> [3]

// RMS:      result0: tensor<?x?xbf16> [64, 96] -> {{.*}}/rms/result0.npy
// RMS-NEXT: result1: tensor<?xbf16> [96] -> {{.*}}/rms/result1.npy

// LN:      result0: tensor<?x?xbf16> [33, 65] -> {{.*}}/ln/result0.npy
// LN-NEXT: result1: tensor<?xbf16> [65] -> {{.*}}/ln/result1.npy
// LN-NEXT: result2: tensor<?xbf16> [65] -> {{.*}}/ln/result2.npy
