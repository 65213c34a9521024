// The row kernel of these two column reductions writes a row of partials per CTA; the final
// reduction over them (in its own launch, final=launch) runs in CTAs that each own a tile of 32, 16 or 8 columns: the widest that still gives a
// CTA per SM (132 on the H200). Narrower tiles give more CTAs over the same partials (at 1024
// columns 128 instead of 32); a warp then loads 32 / C rows of C columns at once (whole
// 32-byte sectors of f32), and the first C lanes of warp 0 combine the row groups in order.
// RUN: rm -rf %t && mkdir -p %t
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=1024 final=launch report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=N1024
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=3000},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=3000 final=launch report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=N3000
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=8192},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=8192 final=launch report=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=N8192
// RUN: morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=65536,N=1024 final=launch})' | FileCheck %s --check-prefix=IR
// By default (final=grid) the final runs in the row kernel's grid, with its CTA size:
// RUN: morf-opt %s --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=GRID
// `final` takes grid or launch; anything else is an error, exit 1:
// RUN: not morf-opt %s --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{final=bogus})' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: option 'final' must be 'grid' or 'launch', got 'bogus'
// On the simulator against the interpreter, at each width (the third one forced), with a
// ragged last tile and fewer partial rows than row groups:
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=700,N=37})' M=700,N=37 1e-5 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=300,N=2200 grid=3})' M=300,N=2200 1e-5 %t
// RUN: sh %S/Inputs/sim_vs_interp.sh %s 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=M=300,N=45 threads-per-row=32})' M=300,N=45 1e-5 %t

// N1024: schedule: @colstats_k1: final_reduction threads=512 threads_per_row=8 rows_per_cta=64
// N3000: schedule: @colstats_k1: final_reduction threads=512 threads_per_row=16 rows_per_cta=32
// N8192: schedule: @colstats_k1: final_reduction threads=512 threads_per_row=32 rows_per_cta=16
// GRID: schedule: @colstats_k1: final_reduction threads=256 threads_per_row=8 rows_per_cta=32
// GRID: note: @colstats_k1 runs in the grid of the launch before it, after a grid barrier (final=grid)

// IR-LABEL: mgpu.func @colstats_k1(
// IR-SAME:  morf.schedule = "FinalReduction threads=512 threads-per-row=8 rows-per-cta=64
// Two reduces: one shared array of 16 warps x 32 lanes each (64 row groups of 8 columns).
// IR:       %[[S0:.*]] = mgpu.shared_alloc {size = 512} : !mgpu.ptr<f32, 3>
// IR:       %[[S1:.*]] = mgpu.shared_alloc {size = 512} : !mgpu.ptr<f32, 3>
// IR:       %[[LANE:.*]] = mgpu.lane_id : index
// IR:       %[[WARP:.*]] = mgpu.warp_id : index
// IR-DAG:   %[[C8:.*]] = mloop.constant 8 : index
// IR-DAG:   %[[C256:.*]] = mloop.constant 256 : index
// The lane's slot, its column in the tile, its row group, and whether it combines.
// IR:       %[[W32:.*]] = mloop.mul %[[WARP]], %{{.*}} : index
// IR-NEXT:  %[[SLOT:.*]] = mloop.add %[[W32]], %[[LANE]] : index
// IR-NEXT:  %[[COL:.*]] = mloop.rem %[[LANE]], %[[C8]] : index
// IR-NEXT:  %[[GROUP:.*]] = mloop.div %[[SLOT]], %[[C8]] : index
// IR-NEXT:  %[[COMB:.*]] = mloop.cmp lt, %[[SLOT]], %[[C8]] : index
// Each lane strides over the partial rows by the 64 row groups of the CTA, four loads at once
// (a step of 256).
// IR:       mloop.for %{{.*}} = %[[GROUP]] to %{{.*}} step %[[C256]] iter_args
// IR:       mgpu.store %{{.*}}, %[[S0]][%[[SLOT]]] : !mgpu.ptr<f32, 3>
// IR:       mgpu.store %{{.*}}, %[[S1]][%[[SLOT]]] : !mgpu.ptr<f32, 3>
// IR:       mgpu.barrier
// IR:       mgpu.if %[[COMB]] {
// IR:       mgpu.load %[[S0]][%{{.*}}] : !mgpu.ptr<f32, 3>
func.func @colstats(%a: tensor<?x?xf32> {morf.dims = ["M", "N"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %s = mtensor.reduce sum %a dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %m = mtensor.reduce max %a dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %m : tensor<?xf32>, tensor<?xf32>
}
