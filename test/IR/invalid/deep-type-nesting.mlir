// RUN: python3 -c "print('\"x.op\"() : ' + '(' * 50000 + ')')" > %t
// RUN: not morf-opt --allow-unregistered-dialect %t 2>&1 | FileCheck %s
// CHECK: :1:{{[0-9]+}}: error: nesting is too deep (more than 128 levels)
