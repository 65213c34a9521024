// morf-run's input errors: each names the argument (or the option), exits with 1 and
// never panics. The inputs come from a first run with --random (result<i>.npy echo
// the arguments: 0 = bf16 [5, 7] as float32, 1 = f32 [5, 7], 2 = f64 [5, 7], 3 = f32 [5]).
//
// RUN: morf-run %s --random M=5,N=7 --output-dir %t/gen
// RUN: morf-run %s --random M=4,N=7 --output-dir %t/gen4
//
// RUN: not morf-run %s --input x=%t/gen/result0.npy 2>&1 | FileCheck --check-prefix=MISSING %s
// MISSING: morf-run: error: argument %y: no input; pass --input y=FILE.npy or --random
//
// RUN: not morf-run %s --input x=%t/gen/result3.npy --random M=5,N=7 2>&1 | FileCheck --check-prefix=RANK %s
// RANK: morf-run: error: argument %x: expected 2-d array for tensor<?x?xbf16>, got shape [5] from {{.*}}gen/result3.npy
//
// RUN: not morf-run %s --input s=%t/gen/result3.npy --random M=5,N=7 2>&1 | FileCheck --check-prefix=STATIC %s
// STATIC: morf-run: error: argument %s: dimension 0 of tensor<3xf32> is 3, got shape [5] from {{.*}}gen/result3.npy
//
// RUN: not morf-run %s --input x=%t/gen/result2.npy --random '' 2>&1 | FileCheck --check-prefix=DTYPE %s
// DTYPE: morf-run: error: argument %x: expected float32 array for tensor<?x?xbf16> (bf16 travels as float32), got float64 from {{.*}}gen/result2.npy
// RUN: not morf-run %s --input d=%t/gen/result1.npy --random '' 2>&1 | FileCheck --check-prefix=DTYPE64 %s
// DTYPE64: morf-run: error: argument %d: expected float64 array for tensor<?x?xf64>, got float32 from {{.*}}gen/result1.npy
//
// RUN: not morf-run %s --input z=%t/gen/result0.npy --random M=5,N=7 2>&1 | FileCheck --check-prefix=UNKNOWN %s
// UNKNOWN: morf-run: error: --input z: @echo has no argument %z (arguments: %x, %y, %d, %r, %s)
//
// RUN: not morf-run %s --input x=%t/no-such-file.npy --random M=5,N=7 2>&1 | FileCheck --check-prefix=NOFILE %s
// NOFILE: morf-run: error: argument %x: {{.*}}no-such-file.npy: No such file or directory
//
// RUN: not morf-run %s --input x=%s --random M=5,N=7 2>&1 | FileCheck --check-prefix=NOTNPY %s
// NOTNPY: morf-run: error: argument %x: {{.*}}errors.mlir: not an .npy file
//
// RUN: not morf-run %s --input x 2>&1 | FileCheck --check-prefix=BADINPUT %s
// BADINPUT: morf-run: error: bad --input 'x': expected NAME=PATH.npy
//
// RUN: not morf-run %s --random M=5,N 2>&1 | FileCheck --check-prefix=SPEC1 %s
// SPEC1: morf-run: error: bad --random spec 'M=5,N': expected NAME=SIZE[,NAME=SIZE...]
// RUN: not morf-run %s --random M=five,N=7 2>&1 | FileCheck --check-prefix=SPEC2 %s
// SPEC2: morf-run: error: bad --random spec 'M=five,N=7': size of 'M' is not a non-negative integer
// RUN: not morf-run %s --random M=5,N=7,K=2 2>&1 | FileCheck --check-prefix=SPEC3 %s
// SPEC3: morf-run: error: bad --random spec: 'K' names no dimension of @echo
// RUN: not morf-run %s --random M=5,M=6,N=7 2>&1 | FileCheck --check-prefix=SPEC4 %s
// SPEC4: morf-run: error: bad --random spec 'M=5,M=6,N=7': 'M' is given twice
// RUN: not morf-run %s --random M=5 2>&1 | FileCheck --check-prefix=UNSIZED %s
// UNSIZED: morf-run: error: argument %x: dimension 1 of tensor<?x?xbf16> is 'N', which --random does not size (add N=SIZE)
//
// RUN: not morf-run %s --input x=%t/gen/result0.npy --random M=4,N=7 2>&1 | FileCheck --check-prefix=CONFLICT %s
// CONFLICT: morf-run: error: --random gives M=4 but M is 5 (dimension 0 of %x from {{.*}}gen/result0.npy)
// RUN: not morf-run %s --input x=%t/gen/result0.npy --input r=%t/gen4/result3.npy --random '' 2>&1 \
// RUN:   | FileCheck --check-prefix=CONFLICT2 %s
// CONFLICT2: morf-run: error: argument %r: dimension 'M' is 4 (dimension 0 of %r from {{.*}}gen4/result3.npy) but 5 (dimension 0 of %x from {{.*}}gen/result0.npy); one name must have one size
//
// RUN: not morf-run %s --entry nope --random M=5,N=7 2>&1 | FileCheck --check-prefix=ENTRY %s
// ENTRY: morf-run: error: no function @nope in {{.*}}errors.mlir (functions: @echo)
// Asking for the GPU explicitly on a machine without CUDA is an error (not a silent fallback).
// UNSUPPORTED: cuda
// RUN: not morf-run %s --device gpu --random M=5,N=7 2>&1 | FileCheck --check-prefix=DEVICE %s
// DEVICE: morf-run: error: no GPU: CUDA driver library not found; GPU work skipped
// RUN: not morf-run %t/no-such-file.mlir 2>&1 | FileCheck --check-prefix=NOIR %s
// NOIR: morf-run: error: cannot read {{.*}}no-such-file.mlir:
//
// A parse error is a diagnostic with file:line:col.
// RUN: echo 'func.func @f(%%a: tensor<?xf32>) -> tensor<?xf32> { return %%b : tensor<?xf32> }' \
// RUN:   | not morf-run - --random '' 2>&1 | FileCheck --check-prefix=PARSE %s
// PARSE: <stdin>:1:{{[0-9]+}}: error: {{.*}}%b
//
// Values that are not bf16-representable are rounded, with a warning (not an error).
// RUN: morf-run %s --input x=%t/gen/result1.npy --random '' --output-dir %t/w 2>&1 | FileCheck --check-prefix=WARN %s
// WARN: morf-run: warning: argument %x: {{[0-9]+}} value(s) in {{.*}}gen/result1.npy are not bf16-representable and were rounded to nearest
// WARN: result0: tensor<?x?xbf16> [5, 7]

func.func @echo(%x: tensor<?x?xbf16> {morf.dims = ["M", "N"]},
                %y: tensor<?x?xf32> {morf.dims = ["M", "N"]},
                %d: tensor<?x?xf64> {morf.dims = ["M", "N"]},
                %r: tensor<?xf32> {morf.dims = ["M"], morf.random = "positive"},
                %s: tensor<3xf32>)
    -> (tensor<?x?xbf16>, tensor<?x?xf32>, tensor<?x?xf64>, tensor<?xf32>, tensor<3xf32>) {
  return %x, %y, %d, %r, %s : tensor<?x?xbf16>, tensor<?x?xf32>, tensor<?x?xf64>, tensor<?xf32>, tensor<3xf32>
}
