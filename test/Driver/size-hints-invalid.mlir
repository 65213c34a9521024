// Malformed size hints are errors with exit code 1: the --size-hints flag's before any
// input is read (as other bad flags), a module attribute's at the module (file:line:col).
// RUN: not morf-opt %s --pipeline=gpu --size-hints M=x 2>&1 | FileCheck --check-prefix=FLAG %s
// RUN: not morf-opt %s --pipeline=gpu --size-hints 'N x=4' 2>&1 | FileCheck --check-prefix=NAME %s
// RUN: not morf-opt %s --pipeline=gpu --size-hints= 2>&1 | FileCheck --check-prefix=EMPTY %s
// RUN: not morf-opt %s --pipeline=gpu --size-hints M=1,M=2 2>&1 | FileCheck --check-prefix=TWICE %s
// RUN: morf-opt %s --pipeline=gpu --size-hints M=x 2>/dev/null; test $? -eq 1
// FLAG: morf-opt: error: invalid --size-hints 'M=x': the size of 'M' in 'M=x' is not an unsigned integer
// NAME: morf-opt: error: invalid --size-hints 'N x=4': 'N x' in 'N x=4' is not a dimension name (expected an identifier)
// EMPTY: morf-opt: error: invalid --size-hints '': expected NAME=SIZE items such as 'M=576000,N=384', got nothing
// TWICE: morf-opt: error: invalid --size-hints 'M=1,M=2': 'M' is given twice
//
// RUN: not morf-opt %s --split-input-file --pipeline=gpu 2>&1 | FileCheck --check-prefix=ATTR %s
// RUN: morf-opt %s --split-input-file --pipeline=gpu >/dev/null 2>&1; test $? -eq 1
// A valid flag takes the place of the attribute, so the attribute is not read:
// RUN: morf-opt %s --split-input-file --pipeline=gpu --size-hints M=4,N=4 -o /dev/null
// ATTR: size-hints-invalid.mlir:[[@LINE+11]]:1: error: 'builtin.module' op invalid size hints in attribute 'morf.size_hints': the size of 'M' in 'M=many' is not an unsigned integer
// ATTR-NEXT: module attributes {morf.size_hints = "M=many"} {
// ATTR-NEXT: ^
// ATTR: size-hints-invalid.mlir:[[@LINE+16]]:1: error: 'builtin.module' op attribute 'morf.size_hints' must be a string such as "M=576000,N=384"
// ATTR: size-hints-invalid.mlir:[[@LINE+20]]:1: error: 'builtin.module' op invalid size hints in attribute 'morf.size_hints': expected NAME=SIZE, got 'N'
// morf-run reports the attribute the same way:
// RUN: not morf-run %S/Inputs/size-hints-bad-attr.mlir --device sim --random M=4 --output-dir %t 2>&1 | FileCheck --check-prefix=RUNERR %s
// RUN: not morf-run %S/Inputs/size-hints-bad-attr.mlir --device sim --random M=4 --size-hints M=4,x --output-dir %t 2>&1 | FileCheck --check-prefix=RUNFLAG %s
// RUNFLAG: morf-run: error: invalid --size-hints 'M=4,x': expected NAME=SIZE, got 'x'
// RUNERR: size-hints-bad-attr.mlir:1:1: error: 'builtin.module' op invalid size hints in attribute 'morf.size_hints': the size of 'M' in 'M=many' is not an unsigned integer

module attributes {morf.size_hints = "M=many"} {
  func.func @f(%x: tensor<?xf32> {morf.dims = ["M"]}) -> tensor<?xf32> {
    return %x : tensor<?xf32>
  }
}

// -----

module attributes {morf.size_hints = 3} {
}

// -----

module attributes {morf.size_hints = "M=1,N"} {
}
