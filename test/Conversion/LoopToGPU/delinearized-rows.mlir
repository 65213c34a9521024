// The rows of a k-D tensor reduced over its last dim are addressed as rows of a 2-D view:
// `x[r div M, r rem M, j]` (r the nest's row, M the buffer's dim 1) is at `r * N + j`, and
// `rmean[r div M, r rem M]` at `r`, so the kernel divides nothing per row and the row input
// is loaded ahead and staged through shared memory like a 2-D one (reduce3d at
// 16 x 1024 x 8192: a CTA per row with four rows staged).
// RUN: morf-opt %S/../../../examples/reduce3d.mlir --pipeline=gpu --size-hints B=16,M=1024,N=8192 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=AUTO
// RUN: morf-opt %S/../../../examples/reduce3d.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=B=4,M=5,N=96 staged-rows=3 threads=64 threads-per-row=64 final=launch stream-copies=true})' | FileCheck %s --check-prefix=IR
// On the simulator against the interpreter: staged (N = 96, the hint), two rows in flight
// per warp, and N = 100 under the hint 96 (the looped form, chosen at run time).
// REQUIRES: numpy
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/reduce3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=B=3,M=5,N=96 staged-rows=3 threads=64 threads-per-row=64 grid=2})' B=3,M=5,N=96 1e-5 %t/0
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/reduce3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=B=3,M=7,N=96 rows-in-flight=2 threads=64 grid=2})' B=3,M=7,N=96 1e-5 %t/1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/reduce3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse,lower-loop-to-gpu{size-hints=B=3,M=5,N=96 staged-rows=3 threads=64 threads-per-row=64 grid=2})' B=2,M=3,N=100 1e-5 %t/2

// AUTO: schedule: @reduce3d_k0: row_fused {{.*}} partials=global staged_rows=4 stream_loads fast=yes

// Three rows ahead before the row loop; in it, no index division between the wait for the
// oldest row and the refill of its slot (the row body: the row mean, its store at the row,
// the column partials). The copies are streamed where asked (`stream-copies=true`: a pure reduction, evict-first in L2).
// IR-LABEL: mgpu.func @reduce3d_k0
// IR-COUNT-3: mgpu.copy_async_commit
// IR:       mloop.for %[[R:[a-z0-9]+]] =
// IR-NEXT:  mgpu.copy_async_wait {pending = 2}
// IR-NOT:   mloop.div %{{.*}} : index
// IR-NOT:   mloop.rem %{{.*}} : index
// IR:       mgpu.store %{{.*}}, %{{.*}}[%[[R]]] : !mgpu.ptr<f32>
// IR-NOT:   mloop.div %{{.*}} : index
// IR-NOT:   mloop.rem %{{.*}} : index
// IR:       mgpu.copy_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {stream, width = 8} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
// IR:       mgpu.func @reduce3d_k1
