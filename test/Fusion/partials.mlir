// A split decoupled from the size (`fuse-mixed-reductions{partials=K}`): the column reduction
// partialed in the row-fused kernel takes at most K partials of `max(ceil(M / K), 1)` rows,
// computed at run time, in place of the plan's fixed split. A persistent grid of K CTAs then
// takes one balanced split each whatever M (no second, nearly empty round; one program serves
// every M of a bucket). RMSNorm backward at 576000 x 384 on the H200 (docs/perf.md, session
// 11): 344.3 us with 256-row splits, 335.2 us with partials=528.
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=524288,N=384 partials=264 report=true},canonicalize,cse)' 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.err
// The lowering divides by the host value: one launch, no fill of the workspace (each split's
// partial row is stored once), and the grid asks for ceil(M / S) CTAs.
// RUN: morf-opt %S/../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=524288,N=384 partials=264},canonicalize,cse,lower-loop-to-gpu{size-hints=M=524288,N=384})' | FileCheck %s --check-prefix=GPU
// The simulator against the interpreter: fewer partials than rows, more partials than rows
// (a split of one row), and several rows a warp with staged rows.
// RUN: mkdir -p %t
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=3},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 threads=64 grid=2})' M=37,N=384 1e-2 %t/a
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=64},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 threads=64 grid=3})' M=13,N=384 1e-2 %t/b
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000,N=384 partials=4},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 threads=64 threads-per-row=16 staged-rows=2 grid=2})' M=41,N=384 1e-2 %t/c
// As many partials as (R times) the row kernel's resident CTAs (`partials=resident*R`): one
// `mloop.resident_programs` for the kernel's two partials (LayerNorm's dw and db), so that
// their splits are one value; the GPU lowering replaces it with the occupancy of the kernel
// it sizes, asked at run time (`mgpu.resident_blocks`, which the simulator answers with 132
// x the kernel's CTAs per SM). RMSNorm and LayerNorm backward on the H200 (docs/perf.md,
// session 13), untuned: at 131072 x 256, 81.5 us with the plan's fixed split, 65.9 with
// partials=resident.
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=524288,N=384 partials=resident},canonicalize,cse)' | FileCheck %s --check-prefix=RES
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=524288,N=384 partials=resident},canonicalize,cse,lower-loop-to-gpu{size-hints=M=524288,N=384})' | FileCheck %s --check-prefix=RESGPU
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/layernorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000000,N=384 partials=resident},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 threads=64 grid=2})' M=300,N=384 1e-2 %t/d
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/rmsnorm_bwd.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=1000000,N=100 partials=resident*2},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=100 final=launch})' M=41,N=100 1e-2 %t/e
// RUN: not morf-opt %S/../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,fuse-mixed-reductions{partials=resident*65})' 2>&1 | FileCheck %s --check-prefix=BAD2
// Where the plan at the hint has no more partials than one wave (132 here: 4096 rows in
// splits of 32 at N = 16384), the split stays the plan's constant.
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=4096,N=16384 partials=resident report=true},canonicalize,cse)' 2>%t.long | FileCheck %s --check-prefix=LONG
// RUN: FileCheck %s --check-prefix=LONGREP < %t.long
// A partial outside a row-fused kernel needs a fixed split: where no partial of the plan runs
// in a row-fused kernel the option is ignored, and the report says so; where some do, only
// theirs is sized at run time (row_col_stats at 16384 x 16384 with partials=264: its column
// sums partialed in their own kernel keep S = 128, the column maxima in the row kernel take
// ceil(rows / 264) rows; the merged final reads each workspace's own bound).
// RUN: not morf-opt %S/../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,fuse-mixed-reductions{partials=many})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: morf-opt %S/../../examples/row_col_stats.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=16384 partials=264 report=true},canonicalize,cse)' 2>%t.mixed | FileCheck %s --check-prefix=MIXED
// RUN: FileCheck %s --check-prefix=MIXEDREP < %t.mixed
// RUN: sh %S/../Conversion/LoopToGPU/Inputs/sim_vs_interp.sh %S/../../examples/row_col_stats.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=16384 partials=264},canonicalize,cse,lower-loop-to-gpu{size-hints=M=1000,N=384 threads=64 grid=2})' M=300,N=384 1e-2 %t/f
// RUN: morf-opt %S/partial-two-reduced-dims.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=64,M=65536,N=8 device=launch=1e-3 partials=64 report=true},canonicalize,cse)' 2>&1 | FileCheck %s --check-prefix=IGNORED

// CHECK-LABEL: func.func @rmsnorm_bwd
// CHECK:       %[[M:.*]] = mloop.dim %dy, 0
// CHECK:       %[[K:.*]] = mloop.constant 264 : index
// CHECK:       %[[PER:.*]] = mloop.div %{{.*}}, %[[K]] : index
// CHECK:       %[[S:.*]] = mloop.max %[[PER]], %{{.*}} : index
// CHECK:       %[[NS:.*]] = mloop.div %{{.*}}, %[[S]] : index
// CHECK:       %workspace = mloop.alloc(%[[NS]], %{{.*}}) : !mloop.buffer<?x?xf32>
// CHECK:         mloop.div %arg0, %[[S]] : index
// CHECK-NEXT:    mloop.accumulate sum %{{.*}}, %workspace[
// CHECK:       } attributes {morf.kernel = {kind = "row-fused", partials = 264, {{(priced = "[^"]*", )?}}style = "persistent"}}
// CHECK:       mloop.reduce sum (%split) = (%{{.*}}) to (%[[NS]])
// CHECK:       } attributes {morf.kernel = {kind = "final", partials = 264{{(, priced = "[^"]*")?}}}}

// REPORT: @rmsnorm_bwd: partials=264: each column reduction's split in a row-fused kernel is ceil(rows / 264) rows at run time, in place of the plan's fixed split

// GPU-NOT:     mgpu.launch @{{.*}}fill
// GPU:         mgpu.launch @rmsnorm_bwd_k0
// GPU-NOT:     mgpu.launch
// GPU:         mgpu.func @rmsnorm_bwd_k0

// IGNORED: partials ignored: no partial of the chosen plan runs in a kernel with a row reduction (rowfused), and the others (alone, or beside pointwise work in fused[..]) need a fixed split
// IGNORED: {kind = "pointwise", {{(priced = "[^"]*", )?}}split =
// MIXED-LABEL: func.func @row_col_stats
// MIXED:         } attributes {morf.kernel = {kind = "pointwise", {{(priced = "[^"]*", )?}}split = 128}}
// MIXED:         } attributes {morf.kernel = {kind = "row-fused", partials = 264, {{(priced = "[^"]*", )?}}style = "persistent"}}
// MIXEDREP: chosen plan: partial(nest3, S=128) ; rowfused.persistent[nest0 + nest1 + partial(nest2, S={{[0-9]+}})]
// MIXEDREP: @row_col_stats: note: 1 partial(s) outside a row-fused kernel keep the plan's fixed split
// BAD: pass 'fuse-mixed-reductions': option 'partials' expects 0, a count of partials, 'resident' or 'resident*R' (R in 1..=64), got 'many'
// BAD2: option 'partials' expects 0, a count of partials, 'resident' or 'resident*R' (R in 1..=64), got 'resident*65'

// RES-LABEL: func.func @layernorm_bwd
// RES:         %[[R:.*]] = mloop.resident_programs {assumed = 132} : index
// RES-NOT:     mloop.resident_programs
// RES:         %workspace = mloop.alloc
// RES:         %workspace_1 = mloop.alloc
// RES:         } attributes {morf.kernel = {kind = "row-fused", partials = "resident", {{(priced = "[^"]*", )?}}style = "persistent"}}

// LONGREP: @layernorm_bwd: note: 2 partial(s) keep the plan's constant split: at the hinted size the plan has at most one wave of them (1 x 132), which the occupancy could not lengthen

// LONG-NOT:    mloop.resident_programs
// LONG:        } attributes {morf.kernel = {kind = "row-fused", {{(priced = "[^"]*", )?}}split = 32, style = "looped"}}

// RESGPU-LABEL: func.func @layernorm_bwd
// RESGPU:       %[[R:.*]] = mgpu.resident_blocks @layernorm_bwd_k0 threads(%{{.*}}) shared(%{{.*}})
// RESGPU-NOT:   mloop.resident_programs
// RESGPU:       %workspace = mloop.alloc
// RESGPU:       mgpu.launch @layernorm_bwd_k0
// RESGPU-NOT:   mgpu.launch
// RESGPU:       mgpu.func @layernorm_bwd_k0({{.*}}) kernel attributes {cooperative, {{.*}}morf.schedule = "RowFused
