// Output that cannot be written is an error with exit code 1, never silent success or a
// panic (issue 8).
// A full device on stdout or as the -o file:
// RUN: not morf-opt %s > /dev/full 2> %t.err
// RUN: FileCheck --check-prefix=FULL %s < %t.err
// RUN: not morf-opt %s -o /dev/full 2>&1 | FileCheck --check-prefix=FULL-O %s
// RUN: not morf-opt --list-passes > /dev/full 2> %t.err
// RUN: FileCheck --check-prefix=FULL %s < %t.err
// A device as the -o file is written in place, not replaced.
// RUN: morf-opt %s -o /dev/null
// RUN: test -c /dev/null
// So is a link into /proc, as /dev/stdout is: the output goes through it, the link stays.
// RUN: rm -f %t.stdout-link && ln -s /proc/self/fd/1 %t.stdout-link
// RUN: morf-opt %s -o %t.stdout-link > %t.out
// RUN: test -L %t.stdout-link
// RUN: FileCheck --check-prefix=OUT %s < %t.out
// A pipe closed early: exit code 1 with a message, no panic (the output is larger than a pipe buffer).
// RUN: for i in $(seq 20000); do echo "func.func @f$i() {"; echo "  return"; echo "}"; done > %t.big.mlir
// RUN: { morf-opt %t.big.mlir 2> %t.err; echo "exit $?" > %t.rc; } | head -c 1 > /dev/null
// RUN: FileCheck --check-prefix=PIPE-RC %s < %t.rc
// RUN: FileCheck --check-prefix=PIPE %s < %t.err
// A closed or full stderr: the diagnostic is lost, the exit code is still 1.
// RUN: printf 'func.func @f() {\n  "foo"() : () -> ()\n}\n' > %t.bad.mlir
// RUN: morf-opt %t.bad.mlir 2>&-; test $? -eq 1
// RUN: morf-opt %t.bad.mlir 2>/dev/full; test $? -eq 1
// RUN: morf-opt %s --no-such-flag 2>/dev/full; test $? -eq 1
// RUN: morf-opt %s --cse --timing --print-ir-after-all --dump-pass-pipeline -vv 2>/dev/full > /dev/null
// RUN: morf-opt %s --cse --timing --print-ir-after-all -vv 2>&- > /dev/null

// FULL: morf-opt: error: cannot write output: No space left on device
// FULL-O: morf-opt: error: could not open output file '/dev/full': No space left on device
// OUT: func.func @f()
// PIPE-RC: exit 1
// PIPE: morf-opt: error: cannot write output: Broken pipe

func.func @f() {
  return
}
