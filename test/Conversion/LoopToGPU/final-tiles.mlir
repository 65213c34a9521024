// The row kernel of these two column reductions writes a row of partials per CTA; the final
// reduction over them (in its own launch, final=launch) runs in CTAs that each own a tile of
// W = C x v columns: C lanes a row segment (threads_per_row), v = 4 f32 columns a lane (16-byte
// loads of the partials: the vector form). A CTA's 32 R / C row groups each walk the partial
// rows four loads in flight at a time (two rows of each of the two reduces; the last trip's
// second row predicated), then the first W slots combine the groups' partials of their column
// in order. C comes from a small latency model (final_vec_lanes: load round trips, the
// combine's length, tiles a CTA): a final in its own launch takes C = 8 at N = 1024 and 8192
// (tiles of 32 columns), C = 4 at N = 3000; one in the row kernel's grid C = 4.
// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=1024 final=launch report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=N1024
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=3000},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=3000 final=launch report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=N3000
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=8192},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=8192 final=launch report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=N8192
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=1024 final=launch})' | FileCheck %s --check-prefix=IR
// By default (final=grid) the final runs in the row kernel's grid, with its CTA size:
// RUN: morf-opt %s --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=GRID
// `final` takes grid or launch; anything else is an error, exit 1:
// RUN: not morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{final=bogus})' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: option 'final' must be 'grid', 'tail' or 'launch', got 'bogus'
// `final-lanes` pins the lanes of a row segment (a tuner knob); 1, 2, 4, 8, 16 or 32:
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 final-lanes=16 report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=LANES
// LANES: schedule: @colstats_k1: final_reduction threads=256 threads_per_row=16 rows_per_cta=16 {{.*}} vector=4
// RUN: not morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{final-lanes=3})' 2>&1 | FileCheck %s --check-prefix=BADLANES
// BADLANES: option 'final-lanes' must be 1, 2, 4, 8, 16 or 32 (0: heuristic), got 3
// On the simulator against the interpreter: the vector form with a ragged last tile and
// fewer partial rows than row groups, the scalar form (N = 37, 45: rows not a multiple of 4),
// a forced width:
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=700,N=37})' M=700,N=37 1e-5 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=300,N=2200 grid=3})' M=300,N=2200 1e-5 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=300,N=45 threads-per-row=32})' M=300,N=45 1e-5 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=300,N=2200 final-lanes=1})' M=300,N=2200 1e-5 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=300,N=2200 final-lanes=32 threads=64})' M=300,N=2200 1e-5 %t
// Without size hints both forms are in the kernel and N picks one at run time (1001: the
// scalar form); the split-K final of the unfused column reductions, vector and scalar:
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu)' M=300,N=1001 1e-5 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu)' M=300,N=1000 1e-5 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,lower-loop-to-gpu)' M=700,N=1000 1e-5 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,lower-loop-to-gpu)' M=700,N=1001 1e-5 %t
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,lower-loop-to-gpu{report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=SPLITK
// SPLITK: schedule: @colstats_k0_final: final_reduction {{.*}} vector=4

// N1024: schedule: @colstats_k1: final_reduction threads=512 threads_per_row=8 rows_per_cta=64 grid<=528 vector=4
// N3000: schedule: @colstats_k1: final_reduction threads=512 threads_per_row=4 rows_per_cta=128 grid<=528 vector=4
// N8192: schedule: @colstats_k1: final_reduction threads=512 threads_per_row=8 rows_per_cta=64 grid<=528 vector=4
// GRID: schedule: @colstats_k1: final_reduction threads=256 threads_per_row=4 rows_per_cta=64 grid<=1056 vector=4
// GRID: note: @colstats_k1 runs in the grid of the launch before it, after a grid barrier (final=grid)

// IR-LABEL: mgpu.func @colstats_k1(
// IR-SAME:  morf.schedule = "FinalReduction threads=512 threads-per-row=8 rows-per-cta=64 vector=4
// Two reduces: one shared array of 16 warps x 32 lanes x 4 columns each (64 row groups of 32
// columns).
// IR:       %[[S0:.*]] = mgpu.shared_alloc {size = 2048} : !mgpu.ptr<f32, 3>
// IR:       %[[S1:.*]] = mgpu.shared_alloc {size = 2048} : !mgpu.ptr<f32, 3>
// IR:       %[[LANE:.*]] = mgpu.lane_id : index
// IR:       %[[WARP:.*]] = mgpu.warp_id : index
// IR-DAG:   %[[C32:.*]] = mloop.constant 32 : index
// IR-DAG:   %[[C8:.*]] = mloop.constant 8 : index
// IR-DAG:   %[[C128:.*]] = mloop.constant 128 : index
// The vector form runs where the row strides are multiples of 4; the scalar form otherwise.
// IR:       mgpu.if %{{.*}} {
// The lane's slot, its segment lane, its row group, and whether it combines (the first 32).
// IR:       %[[W32:.*]] = mloop.mul %[[WARP]], %[[C32]] : index
// IR-NEXT:  %[[SLOT:.*]] = mloop.add %[[W32]], %[[LANE]] : index
// IR-NEXT:  %{{.*}} = mloop.rem %[[SLOT]], %[[C8]] : index
// IR-NEXT:  %[[GROUP:.*]] = mloop.div %[[SLOT]], %[[C8]] : index
// IR-NEXT:  %[[COMB:.*]] = mloop.cmp lt, %[[SLOT]], %[[C32]] : index
// Each lane strides over the partial rows by the 64 row groups of the CTA, two 16-byte loads
// of each reduce at once (a step of 128), the second predicated; both reduces in one loop.
// IR:       mloop.for %{{.*}} = %[[GROUP]] to %{{.*}} step %[[C128]] iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// IR-COUNT-4: mgpu.load_vec
// IR-NOT:   mgpu.load_vec
// IR:       mloop.select
// IR:       mloop.yield
// IR:       mgpu.store %{{.*}}, %[[S0]][%{{.*}}] : !mgpu.ptr<f32, 3>
// IR:       mgpu.store %{{.*}}, %[[S1]][%{{.*}}] : !mgpu.ptr<f32, 3>
// IR:       mgpu.barrier
// IR:       mgpu.if %[[COMB]] {
// IR:       mgpu.load %[[S0]][%{{.*}}] : !mgpu.ptr<f32, 3>
// The scalar form: a column a lane, tiles of 32 columns.
// IR:       } else {
// IR-NOT:   mgpu.load_vec
// IR:       mgpu.load %{{.*}} {nc} : !mgpu.ptr<f32>
func.func @colstats(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %s = mtensor.reduce sum %a dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %m = mtensor.reduce max %a dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %m : tensor<?xf32>, tensor<?xf32>
}
