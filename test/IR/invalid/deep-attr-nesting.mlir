// RUN: python3 -c "print('\"x.op\"() {a = ' + '[' * 100000 + '} : () -> ()')" > %t
// RUN: not morf-opt --allow-unregistered-dialect %t 2>&1 | FileCheck %s
// An attribute nested 100000 deep is an error, not a stack overflow.
// CHECK: :1:{{[0-9]+}}: error: nesting is too deep (more than 128 levels)
