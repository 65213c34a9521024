// A module whose name is not a bare identifier prints it quoted, and the output parses again
// (found by the round-trip fuzzer: `module @M= {` did not load).
// RUN: morf-opt %s | morf-opt | FileCheck %s
// CHECK: module @"M=" {
module attributes {sym_name = "M="} {
}
