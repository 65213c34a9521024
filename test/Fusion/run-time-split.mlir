// The cost model prices the partials of a row-fused kernel at the split they run at
// (fusion/cost.rs `run_time_splits`), their finals and workspaces too. LayerNorm backward at
// 65536 x 200 with only S = 64 tried: the row kernel holds 3 CTAs a SM in the model (396
// resident), so its partials run ceil(65536 / 396) = 166 rows each (the model's count), not
// 1024 partials of 64; with `partials=264`, ceil(65536 / 264) = 249 rows; without the option,
// the plan's S is what runs and is priced.
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=200 partials=resident splits=64 report=true},canonicalize,cse)' 2>&1 >/dev/null | FileCheck %s --check-prefix=RES
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=200 partials=264 splits=64 report=true},canonicalize,cse)' 2>&1 >/dev/null | FileCheck %s --check-prefix=K
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=200 splits=64 report=true},canonicalize,cse)' 2>&1 >/dev/null | FileCheck %s --check-prefix=FIXED
// The lowered module: the plan's S is the run-time split's floor (`mloop.max` with the
// occupancy's share).
// RUN: morf-opt %S/../../examples/layernorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=200 partials=resident splits=64},canonicalize,cse)' | FileCheck %s --check-prefix=IR

// RES: chosen plan: rowfused.persistent[nest0 + nest1 + nest2 + partial(nest3, S=64) + partial(nest4, S=64)] ; fused[final(nest3, S=64) + final(nest4, S=64)]
// RES: - rowfused.persistent[nest0 + nest1 + nest2 + partial(nest3, S=64) + partial(nest4, S=64)]: {{.*}} 395 CTAs, {{.*}} 3 CTAs per SM, priced at the run-time split (nest3 S=166, nest4 S=166)
// RES-NOT: S=64{{.*}}1024 CTAs

// K: chosen plan: rowfused.persistent[nest0 + nest1 + nest2 + partial(nest3, S=64) + partial(nest4, S=64)]
// K: - rowfused.persistent[{{.*}}]: {{.*}} 264 CTAs, {{.*}} priced at the run-time split (nest3 S=249, nest4 S=249)

// FIXED: chosen plan: rowfused.persistent[nest0 + nest1 + nest2 + partial(nest3, S=64) + partial(nest4, S=64)]
// FIXED-NOT: priced at the run-time split

// IR:      %[[R:.*]] = mloop.resident_programs {assumed = 132} : index
// IR:      %[[S:.*]] = mloop.constant 64 : index
// IR:      mloop.max %{{.*}}, %[[S]] : index
// IR:      } attributes {morf.kernel = {kind = "row-fused", partials = "resident", style = "persistent"}}
