// The runner's own test: a RUN line piping into FileCheck, with a continuation.
// RUN: echo "hello from %%s" \
// RUN:   | FileCheck %s
// RUN: echo 'module {}' > %t && FileCheck --check-prefix=MOD %s < %t

// CHECK: hello from %s
// MOD: module {}
