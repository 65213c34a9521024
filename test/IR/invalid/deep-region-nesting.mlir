// RUN: python3 -c "n = 500; print('\"x.op\"() ({\n' * n + '\"x.op\"() : () -> ()\n' + '}) : () -> ()\n' * n)" > %t
// RUN: not morf-opt --allow-unregistered-dialect %t 2>&1 | FileCheck %s
// 500 nested regions exceed the nesting limit: an error with a location, not a crash.
// CHECK: :{{[0-9]+}}:{{[0-9]+}}: error: nesting is too deep (more than 128 levels)
