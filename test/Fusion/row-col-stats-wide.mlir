// Row and column statistics of one matrix with long rows (N > 1024: a CTA per row, its next
// rows staged through shared memory): both row reductions and both column partials share one
// row kernel, which reads x once. Priced without the staged rows (a full round trip and 1.1 us
// per block reduction for every row), that kernel cost more than two row kernels that each
// read x (446 us against 317; on the H200: 119-130 us against 181).
// RUN: morf-opt %S/../../examples/row_col_stats.mlir --pipeline=gpu --size-hints M=16384,N=8192 \
// RUN:   --fusion-report -o /dev/null 2>&1 | FileCheck %s

// CHECK: fuse-mixed-reductions: @row_col_stats: chosen plan: rowfused.persistent[nest0 + nest1 + partial(nest2, S=[[S:[0-9]+]]) + partial(nest3, S={{[0-9]+}})] ; fused[final(nest2, S={{[0-9]+}}) + final(nest3, S={{[0-9]+}})]
// CHECK: stopped: saturated
// CHECK: <- chosen
// CHECK-NEXT: rowfused.persistent[nest0 + nest1 + partial(nest2, S=[[S]]) + partial(nest3, S=[[S]])]
// CHECK-NEXT: - rowfused.persistent[nest0 + nest1 + partial(nest2, S=[[S]]) + partial(nest3, S=[[S]])]: read 268.435 MB, {{.*}} rows staged
// The two-kernel plan is still considered, and costs more.
// CHECK: rowfused.persistent[nest{{[01]}} + partial(nest{{[23]}}, S={{[0-9]+}})] ; rowfused.persistent[nest{{[01]}} + partial(nest{{[23]}}, S={{[0-9]+}})]
// CHECK: why not fused:
// CHECK-NEXT: nest0 & nest1: fused in rowfused.persistent[nest0 + nest1 + partial(nest2, S=[[S]]) + partial(nest3, S=[[S]])]
// CHECK-NEXT: nest0 & nest2: fused in rowfused.persistent
// CHECK-NEXT: nest0 & nest3: fused in rowfused.persistent
// CHECK-NEXT: nest1 & nest2: fused in rowfused.persistent
// CHECK-NEXT: nest1 & nest3: fused in rowfused.persistent
// CHECK-NEXT: nest2 & nest3: fused in rowfused.persistent
