// `ptx-spill-relief`: the execution engine's spill relief as a pass, with ptxas in the
// driver's place, for PTX loaded by something else. rmsnorm_bwd at 576000 x 384 is planned
// for three CTAs a SM (`min_ctas_planned`, the register estimate's plan); ptxas spills under
// three CTAs' cap of 80 registers, so the pass takes the bound one CTA lower (two CTAs: 110
// registers, no spill) and says so. A bound that was asked for (`min-ctas=3`) is left alone,
// spills and all. Without an assembler the pass fails with a diagnostic and writes nothing.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384})' --emit=ptx | FileCheck %s --check-prefix=PLAN
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384},ptx-spill-relief)' --emit=ptx -o %t/relieved.ptx 2> %t/remarks.txt
// RUN: FileCheck %s --check-prefix=RELIEVED < %t/relieved.ptx
// RUN: FileCheck %s --check-prefix=REMARK < %t/remarks.txt
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384 min-ctas=3},ptx-spill-relief)' --emit=ptx 2> %t/asked.txt | FileCheck %s --check-prefix=ASKED
// RUN: not grep remark %t/asked.txt
// RUN: not morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=576000,N=384},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=576000,N=384},ptx-spill-relief{ptxas=%t/no-such-ptxas})' --emit=ptx -o %t/none.ptx 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not test -e %t/none.ptx
// PLAN-LABEL: .entry rmsnorm_bwd_k0
// PLAN: .minnctapersm 3
// RELIEVED-LABEL: .entry rmsnorm_bwd_k0
// RELIEVED: .maxntid 256, 1, 1
// RELIEVED-NEXT: .minnctapersm 2
// REMARK: rmsnorm_bwd.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: spill relief: kernel 'rmsnorm_bwd_k0' spilled {{[0-9]+}} bytes at 80 registers under its planned bound of 3 CTA(s) per SM; bounded to 2 CTA(s) per SM (.minnctapersm: one fewer than planned)
// ASKED-LABEL: .entry rmsnorm_bwd_k0
// ASKED: .minnctapersm 3
// NONE: error: 'builtin.module' op ptx-spill-relief: cannot run {{.*}}no-such-ptxas
