// A malformed command line is an error like any other: a message and exit status 1.
//
// RUN: morf-run %s --bogus > %t.out 2>&1; test $? -eq 1 && FileCheck %s < %t.out
// RUN: morf-run %s --seed notanumber > %t.out 2>&1; test $? -eq 1 && FileCheck --check-prefix=SEED %s < %t.out
// RUN: morf-run > %t.out 2>&1; test $? -eq 1 && FileCheck --check-prefix=NOFILE %s < %t.out
// CHECK: error: unexpected argument '--bogus'
// SEED: error: invalid value 'notanumber' for '--seed <SEED>'
// NOFILE: error: the following required arguments were not provided

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
