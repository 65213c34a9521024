// An unknown flag prints clap's usage error and exits with 1 (not clap's 2).
// RUN: not morf-opt --no-such-flag %s 2>&1 | FileCheck %s
// RUN: morf-opt --no-such-flag %s 2>/dev/null; test $? -eq 1
// A bad option of a pass flag is an error too.
// RUN: not morf-opt --canonicalize=max-iterations=many %s 2>&1 | FileCheck --check-prefix=OPT %s
// RUN: not morf-opt --cse=bogus %s 2>&1 | FileCheck --check-prefix=NOOPT %s
// --help exits with 0.
// RUN: morf-opt --help | FileCheck --check-prefix=HELP %s

// CHECK: error: unexpected argument '--no-such-flag'
// CHECK: Usage: morf-opt

// OPT: morf-opt: error: pass 'canonicalize': option 'max-iterations' expects an unsigned integer, got 'many'
// NOOPT: morf-opt: error: pass 'cse' has no option 'bogus'

// HELP: Usage: morf-opt
// HELP: --split-input-file

func.func @f() {
  return
}
