// docs/reference.md is generated from the op and pass definitions; it must be current
// (regenerate: `morf-opt --reference-docs > docs/reference.md`).
// RUN: morf-opt --reference-docs > %t.md
// RUN: diff -u %S/../../docs/reference.md %t.md
// RUN: FileCheck %s < %t.md
// CHECK: ## `mgpu`: kernels
// CHECK: | `mgpu.grid_barrier` | grid-wide barrier of a cooperative kernel |
// CHECK: ### `lower-loop-to-gpu`
// CHECK: | `final` | `grid` |
// CHECK: ## Named pipelines
