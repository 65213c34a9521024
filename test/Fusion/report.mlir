// The explanation of the search: `--fusion-report` (or the pass option `report`) prints the
// chosen plan and why each pair of reductions was or was not fused to stderr;
// `--dump-egraph=FILE` (or `dump-egraph=FILE`) writes the e-graphs as Graphviz.
// RUN: morf-opt --pipeline=fuse %S/../../examples/rmsnorm_bwd.mlir --fusion-report \
// RUN:   --dump-egraph=%t.dot 2>&1 >/dev/null | FileCheck %s
// RUN: FileCheck %s --check-prefix=DOT < %t.dot
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --lower-tensor-to-loop \
// RUN:   --fuse-mixed-reductions='size-hints=M=576000,N=384 report dump-egraph=%t.ln.dot' 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=LN
// RUN: FileCheck %s --check-prefix=DOT < %t.ln.dot

// CHECK: fuse-mixed-reductions: @rmsnorm_bwd: chosen plan: rowfused.persistent[nest0 + nest1 + partial(nest2, S={{[0-9]+}})] ; final(nest2, S={{[0-9]+}})
// CHECK: nest0: reduce sum over [d1] of
// CHECK: stopped: saturated
// CHECK: <- chosen
// CHECK: why not fused:
// CHECK-NEXT: nest0 & nest2: fused in rowfused.persistent

// LN: chosen plan: rowfused.persistent[nest0 + nest1 + nest2 + partial(nest3, S={{[0-9]+}}) + partial(nest4, S={{[0-9]+}})] ; fused[final(nest3, S={{[0-9]+}}) + final(nest4, S={{[0-9]+}})]
// LN: extents: d0=? (hint 576000) d1=? (hint 384)
// LN: why not fused:
// LN: nest0 & nest3: fused in rowfused.persistent
// LN: nest0 & nest4: fused in rowfused.persistent
// LN: crossover at

// DOT: digraph fusion {
// DOT: cluster
