// Launch bounds: a CTA-per-row kernel holding its rows in registers carries the CTAs per SM
// its schedule planned (`min_ctas_per_sm`, from the register estimate), emitted as
// `.minnctapersm`, so that ptxas neither caps its registers lower and spills nor takes more;
// a warp-per-row kernel of 256 threads has `.maxntid` alone; over 256 threads without a plan,
// `.minnctapersm 1`. (Each with its final reduction in its own launch: final=launch.)
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=16384,N=8192 final=launch})' | FileCheck %s --check-prefix=IR
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=16384,N=8192 final=launch})' --emit=ptx | FileCheck %s
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=1024 final=launch})' --emit=ptx | FileCheck %s --check-prefix=WARP
// The same kernel with its final behind a grid barrier (the default, final=grid) is planned for
// the CTAs its register estimate leaves: the runtime caps a cooperative grid at the CTAs resident.
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pipeline=gpu --size-hints M=65536,N=1024 --emit=ptx | FileCheck %s --check-prefix=COOP
// The tuner's knob `min-ctas` overrides the plan: a fixed count, or `none` for no bound at all
// (not even `.minnctapersm 1` over 256 threads).
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=16384,N=8192 final=launch min-ctas=3})' --emit=ptx | FileCheck %s --check-prefix=FIXED
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=16384,N=8192 final=launch min-ctas=none})' --emit=ptx | FileCheck %s --check-prefix=NONE
// RUN: not morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-loop-to-gpu{min-ctas=99})' 2>&1 | FileCheck %s --check-prefix=BAD
// The plan is the CTAs the register estimate leaves resident, marked `min_ctas_planned` (spill
// relief may lower it where the assembler spills under it; a fixed count is not marked).
// `margin` keeps a quarter margin on the estimate, the plan until the forty-seventh session:
// RMSNorm backward's cooperative row kernel at 65536 x 200 estimates 58 registers; 4 CTAs' cap
// of 64 sits within a quarter of it, so `margin` takes 3, the plan 4.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=200 | FileCheck %s --check-prefix=PLANNED-IR
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=200 --emit=ptx | FileCheck %s --check-prefix=PLANNED
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=200},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=200 min-ctas=margin})' --emit=ptx | FileCheck %s --check-prefix=MARGIN
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=16384,N=8192 final=launch min-ctas=3})' | FileCheck %s --check-prefix=FIXED-IR
// Packed rows (a thread per row, 2 rows of N = 17 or 20 warp-transposed, cooperative) are
// planned by their estimate (`schedule::packed_regs`: the rows' inputs, the hoisted w and the
// partials once, 4 scalars a row, 85% for bf16): two CTAs a SM at N = 17 and 14, one at N = 20.
// The flat partials form (gelu_bwd_bias's dx beside db at N = 32: 256 threads, two vectors in
// flight) is planned for four CTAs a SM (`FLAT_REGISTERS`), its CTA of 384 threads for two.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=2097152,N=17 --emit=ptx | FileCheck %s --check-prefix=PACKED2
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=2097152,N=14 --emit=ptx | FileCheck %s --check-prefix=PACKED2
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=2097152,N=20 --emit=ptx | FileCheck %s --check-prefix=PACKED1
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=1048576,N=32 --emit=ptx | FileCheck %s --check-prefix=FLAT4
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pipeline=gpu --size-hints M=131072,N=384 --emit=ptx | FileCheck %s --check-prefix=FLAT2
// PACKED2-LABEL: .entry rmsnorm_bwd_k0
// PACKED2: .maxntid 256, 1, 1
// PACKED2-NEXT: .minnctapersm 2
// PACKED1-LABEL: .entry rmsnorm_bwd_k0
// PACKED1: .maxntid 256, 1, 1
// PACKED1-NEXT: .minnctapersm 1
// FLAT4-LABEL: .entry gelu_bwd_bias_k0
// FLAT4: .maxntid 256, 1, 1
// FLAT4-NEXT: .minnctapersm 4
// FLAT2-LABEL: .entry gelu_bwd_bias_k0
// FLAT2: .maxntid 384, 1, 1
// FLAT2-NEXT: .minnctapersm 2
// FIXED-LABEL: .entry colmax_rowsum_k0
// FIXED: .maxntid 256, 1, 1
// FIXED-NEXT: .minnctapersm 3
// NONE-LABEL: .entry colmax_rowsum_k0
// NONE: .maxntid 256, 1, 1
// NONE-NOT: .minnctapersm
// NONE: {
// PLANNED-IR: mgpu.func @rmsnorm_bwd_k0({{.*}}) kernel attributes {cooperative, max_threads = 256, min_ctas_per_sm = 4, min_ctas_planned,
// PLANNED-LABEL: .entry rmsnorm_bwd_k0
// PLANNED: .maxntid 256, 1, 1
// PLANNED-NEXT: .minnctapersm 4
// MARGIN-LABEL: .entry rmsnorm_bwd_k0
// MARGIN: .maxntid 256, 1, 1
// MARGIN-NEXT: .minnctapersm 3
// FIXED-IR: mgpu.func @colmax_rowsum_k0({{.*}}) kernel attributes {max_threads = 256, min_ctas_per_sm = 3, morf.bench,
// BAD: option 'min-ctas' must be 0 (planned), 'margin', 'none' or 1..32, got '99'
// IR: mgpu.func @colmax_rowsum_k0({{.*}}) kernel attributes {max_threads = 256, min_ctas_per_sm = 2, min_ctas_planned,
// CHECK-LABEL: .entry colmax_rowsum_k0
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 2
// CHECK-LABEL: .entry colmax_rowsum_k1
// CHECK: .maxntid 512, 1, 1
// CHECK-NEXT: .minnctapersm 1
// WARP-LABEL: .entry colmax_rowsum_k0
// WARP: .maxntid 256, 1, 1
// WARP-NOT: .minnctapersm
// WARP: {
// COOP-LABEL: .entry colmax_rowsum_k0
// COOP: .maxntid 256, 1, 1
// COOP-NEXT: .minnctapersm {{[1-9]}}
// COOP-NOT: .entry
// COOP: atom.add.relaxed.gpu.global.u32
