// --dump-egraph takes any file name: one with spaces, braces, '=' or quotes is quoted into
// the pass options instead of being split at the space (issue 8).
// RUN: rm -rf %t && mkdir -p "%t/a b"
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pipeline=fuse --dump-egraph="%t/a b/e{1}=x.dot" > /dev/null
// RUN: FileCheck %s < "%t/a b/e{1}=x.dot"
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir \
// RUN:   --pass-pipeline='builtin.module(lower-tensor-to-loop,fuse-mixed-reductions)' \
// RUN:   --dump-egraph="%t/a b/it's.dot" > /dev/null
// RUN: FileCheck %s < "%t/a b/it's.dot"
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --lower-tensor-to-loop --fuse-mixed-reductions \
// RUN:   --dump-egraph='%t/a b/say "x".dot' > /dev/null
// RUN: FileCheck %s < '%t/a b/say "x".dot'
// A name no quoting can carry is an error, not a truncated option.
// RUN: not morf-opt %S/../../examples/rmsnorm_bwd.mlir --pipeline=fuse --dump-egraph="%t/a'b\"c.dot" 2>&1 \
// RUN:   | FileCheck --check-prefix=BAD %s
// RUN: not morf-opt %S/../../examples/rmsnorm_bwd.mlir --pipeline=fuse --dump-egraph=$'%t/a\nb.dot' 2>&1 \
// RUN:   | FileCheck --check-prefix=NEWLINE %s
// RUN: ls "%t/a b" | FileCheck --check-prefix=FILES %s
// --dump-pass-pipeline shows the option quoted, as it must be written.
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pipeline=fuse --dump-egraph="%t/a b/p.dot" \
// RUN:   --dump-pass-pipeline 2>&1 > /dev/null | FileCheck --check-prefix=PIPELINE %s

// CHECK: // @rmsnorm_bwd
// CHECK-NEXT: digraph fusion {
// BAD: morf-opt: error: --dump-egraph: '{{.*}}a'b"c.dot' cannot be a pass option value: it contains both ' and "
// NEWLINE: morf-opt: error: --dump-egraph: '{{.*}}a\nb.dot' cannot be a pass option value: it contains the control character '\n'
// PIPELINE: fuse-mixed-reductions{{[{].*}} dump-egraph="{{.*}}/a b/p.dot" hint-spans= max-iterations=
// FILES: e{1}=x.dot
// FILES-NEXT: it's.dot
// FILES-NEXT: say "x".dot
// FILES-NOT: {{.}}
