// morf-run replaces its result set as a whole, never follows a link it did not make,
// and reports every write error as `cannot write '<path>': <reason>` with exit code 1.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-run %s --random N=4 --seed 1 --output-dir %t/out
// RUN: cp %t/out/result0.npy %t/old0.npy
//
// result1.npy cannot be written (a folder is in the way): result0.npy is left as it was.
// RUN: rm %t/out/result1.npy && mkdir %t/out/result1.npy
// RUN: not morf-run %s --random N=4 --seed 2 --output-dir %t/out 2>&1 | FileCheck --check-prefix=BLOCKED %s
// RUN: cmp %t/out/result0.npy %t/old0.npy
// RUN: rmdir %t/out/result1.npy
// BLOCKED: morf-run: error: cannot write '{{.*}}out/result1.npy': output path is a directory
//
// A link named result0.npy is replaced by the result, its target left alone.
// RUN: echo keep > %t/target.txt
// RUN: rm %t/out/result0.npy && ln -s %t/target.txt %t/out/result0.npy
// RUN: morf-run %s --random N=4 --seed 2 --output-dir %t/out
// RUN: test ! -L %t/out/result0.npy
// RUN: echo keep | cmp - %t/target.txt
//
// No temporary file is left behind.
// RUN: ls -A %t/out | FileCheck --check-prefix=LS %s
// LS-NOT: tmp
//
// A file as the output folder, a full standard output, a closed pipe: errors, no panic.
// RUN: not morf-run %s --random N=4 --output-dir /dev/full 2>&1 | FileCheck --check-prefix=FULLDIR %s
// FULLDIR: morf-run: error: cannot write '/dev/full/result0.npy': '/dev/full' is not a directory
// RUN: not morf-run %s --random N=4 --output-dir %t/target.txt/sub 2>&1 | FileCheck --check-prefix=MKDIR %s
// MKDIR: morf-run: error: cannot write '{{.*}}target.txt/sub': cannot create the output folder: {{.*}}
// RUN: not morf-run %s --random N=4 --output-dir %t/out 2>%t/err > /dev/full
// RUN: FileCheck --check-prefix=FULL %s < %t/err
// FULL: morf-run: error: cannot write to standard output: No space left on device
// RUN: bash -c 'set -o pipefail; morf-run %s --random N=4 --output-dir %t/out 2>%t/pipe | head -c 0; echo rc=$?' | FileCheck --check-prefix=PIPE %s
// RUN: not grep -i panick %t/pipe
// PIPE: rc={{[01]}}

func.func @two(%x: tensor<?xf32> {morf.dims = ["N"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %y = mtensor.neg %x : tensor<?xf32>
  return %x, %y : tensor<?xf32>, tensor<?xf32>
}
