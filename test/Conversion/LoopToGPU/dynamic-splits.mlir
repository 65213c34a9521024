// lower-loop-to-gpu{dynamic-splits=true}: a register-resident row kernel's CTAs take their
// splits from a work counter (`mgpu.work_loop`: each CTA its own first split, then the next
// one free) instead of every grid_dim-th one; `resident-splits=R` makes the splits of
// `fuse-mixed-reductions{partials=resident}` R per CTA that fits, so that there are more
// splits than CTAs to balance. A split's rows and its partial row do not depend on which
// CTA runs it: the same bits either way. Both off by default (tuner knobs;
// docs/conversion-loop-to-gpu.md, "Splits from a work counter").
// RUN: rm -rf %t && mkdir -p %t
// RUN: not morf-opt %s --pass-pipeline='builtin.module(lower-loop-to-gpu{resident-splits=0})' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: option 'resident-splits' must be in 1..=64
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=200 partials=resident},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=200 dynamic-splits=true resident-splits=4 report=true})' 2> %t/report.txt | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.txt
// Not with a cluster per row (its CTAs take each split together), and the report says so:
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384 partials=resident},canonicalize,cse,lower-loop-to-gpu{size-hints=M=4096,N=16384 cluster=4 dynamic-splits=true report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=CLUSTER
// The same outputs on the simulator, bit for bit, with the counter and with the fixed stride
// (four splits a CTA), and against the interpreter:
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=200 partials=resident},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=200 dynamic-splits=true resident-splits=4})' > %t/dyn.mlir
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=200 partials=resident},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=200 resident-splits=4})' > %t/static.mlir
// RUN: morf-run %t/dyn.mlir --device sim --random M=1000,N=200 --seed 5 --output-dir %t/dyn > /dev/null
// RUN: morf-run %t/static.mlir --device sim --random M=1000,N=200 --seed 5 --output-dir %t/static > /dev/null
// RUN: cmp %t/dyn/result0.npy %t/static/result0.npy
// RUN: cmp %t/dyn/result1.npy %t/static/result1.npy
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1001,N=100 partials=resident},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1001,N=100 dynamic-splits=true resident-splits=3})' M=1001,N=100 1e-2 %t

// Four splits a CTA that fits, on the host; the kernel's splits in a work loop.
// IR: %[[R:.*]] = mgpu.resident_blocks @rmsnorm_bwd_k0 threads(%{{.*}}) shared(%{{.*}})
// IR-NEXT: %[[K:.*]] = mloop.constant 4 : index
// IR-NEXT: %{{.*}} = mloop.mul %[[R]], %[[K]] : index
// IR-LABEL: mgpu.func @rmsnorm_bwd_k0(
// IR: mgpu.work_loop %{{.*}} to %{{.*}} {
// IR-NOT: mgpu.work_loop
// IR: mgpu.grid_barrier

// REPORT: note: @rmsnorm_bwd_k0: the fast form's CTAs take their splits from a work counter (dynamic-splits)
// CLUSTER: note: @rmsnorm_bwd_k0: dynamic-splits not taken: it needs the register-resident (fast) row form without a cluster per row
