// --list-passes and --list-ops print to stdout and exit 0 without reading input.
// RUN: morf-opt --list-passes | FileCheck --check-prefix=PASSES %s
// RUN: morf-opt --list-ops | FileCheck --check-prefix=OPS %s

// PASSES: Available passes:
// PASSES: --canonicalize
// PASSES-NEXT: max-iterations {{.*}}(default: 10)
// PASSES: --cse
// PASSES: --dce

// OPS: Registered ops:
// OPS: builtin.module
// OPS: func.func
// OPS: mtensor.add{{ +}}elementwise sum
