// A kernel that only reduces its full-rank inputs (it stores no tensor of their rank) loads
// them with cache streaming: `{nc, stream}` loads, `ld.global.cs.nc` in PTX. Its lines are the
// first the caches evict, so a stream read once recycles a few L2 lines instead of evicting
// (and writing back, where dirty) the cache's other lines. Lower-rank inputs, partials a final
// reduction reads, tensors another nest also loads, and kernels that write a tensor of that
// rank (the norms' dx) keep the default.
// RUN: mkdir -p %t
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pipeline=gpu --size-hints M=65536,N=1024 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pipeline=gpu --size-hints M=65536,N=1024 | FileCheck %s --check-prefix=IR
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pipeline=gpu --size-hints M=65536,N=1024 --emit=ptx | FileCheck %s --check-prefix=PTX
// A kernel that writes dx: no streaming, unless asked.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=65536,N=1024 | FileCheck %s --check-prefix=WRITES
// A CTA per row stages its rows through shared memory: with `stream-copies=true` (a tuner
// knob; off by default, it cost 1.5-2% on the H200 at 16384 x 8192) the copies of a streamed
// input are streamed too (`{stream}` on `mgpu.copy_async`, an evict-first L2 hint in PTX); by
// default, and in a kernel that writes dx, the copies carry no hint.
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=16384,N=8192 stream-copies=true})' | FileCheck %s --check-prefix=STAGED
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192},canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{size-hints=M=16384,N=8192 stream-copies=true})' --emit=ptx | FileCheck %s --check-prefix=STAGED-PTX
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pipeline=gpu --size-hints M=16384,N=8192 | FileCheck %s --check-prefix=STAGED-DEFAULT
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu --size-hints M=4096,N=16384 | FileCheck %s --check-prefix=STAGED-WRITES
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/colmax_rowsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=16384,N=8192},canonicalize,cse,lower-loop-to-gpu{size-hints=M=16384,N=8192 grid=3})' M=11,N=8192 1e-5 %t/s3
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 stream-loads=true report=true})' 2>&1 >%t/forced.mlir | FileCheck %s --check-prefix=FORCED
// RUN: FileCheck %s --check-prefix=FORCED-IR < %t/forced.mlir
// Declined: stream-loads=false; a row without a register-resident form (no N hint: a second
// pass over the row loads it again from global memory); a tensor two nests load (row_col_stats
// at N = 16384 reads x in two row kernels).
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024 stream-loads=false})' | FileCheck %s --check-prefix=OFF
// RUN: morf-opt %S/../../../examples/row_col_stats.mlir --pipeline=gpu --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=TWICE
// RUN: morf-opt %S/../../../examples/row_col_stats.mlir --pipeline=gpu --size-hints M=4096,N=16384 --schedule-report 2>&1 >/dev/null | FileCheck %s --check-prefix=SHARED
// The schedule attribute carries it, and the lowering honours the attribute either way.
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024},canonicalize,cse,gpu-choose-schedule{size-hints=M=65536,N=1024})' > %t/attr.mlir
// RUN: FileCheck %s --check-prefix=ATTR < %t/attr.mlir
// RUN: sed 's/stream_loads = 1, //' %t/attr.mlir | morf-opt - --lower-loop-to-gpu | FileCheck %s --check-prefix=OFF
// RUN: sed 's/stream_loads = 1/stream_loads = 2/' %t/attr.mlir > %t/bad.mlir
// RUN: not morf-opt %t/bad.mlir --lower-loop-to-gpu 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{stream-loads=maybe})' 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not morf-opt %S/../../../examples/colmax_rowsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{stream-copies=maybe})' 2>&1 | FileCheck %s --check-prefix=BADCOPIES
// A hint only: the streamed kernels agree with the interpreter on the simulator.
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/colmax_rowsum.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=M=65536,N=1024 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=M=65536,N=1024})' M=45,N=1024 1e-5 %t/s1
// RUN: sh %S/Inputs/sim_vs_interp.sh %S/../../../examples/reduce3d.mlir 'builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{size-hints=B=64,M=1024,N=1024 splits=16},canonicalize,cse,lower-loop-to-gpu{size-hints=B=64,M=1024,N=1024})' B=3,M=7,N=1024 1e-5 %t/s2

// REPORT: schedule: @colmax_rowsum_k0: row_fused {{.*}} partials=shared stream_loads fast=yes(N=1024
// REPORT: schedule: @colmax_rowsum_k1: final_reduction {{.*}} partials=none fast=no

// IR: mgpu.func @colmax_rowsum_k0
// IR: mgpu.load_vec %{{.*}} {nc, stream} : !mgpu.ptr<bf16>
// IR: mgpu.grid_barrier
// IR-NOT: stream
// IR: mgpu.return

// PTX: .entry colmax_rowsum_k0
// PTX: ld.global.cs.nc.v4.b32
// PTX-NOT: ld.global.cs.nc.f32

// WRITES-NOT: stream

// FORCED: schedule: @rmsnorm_bwd_k0: row_fused {{.*}} stream_loads
// FORCED-IR: mgpu.load_vec %{{.*}} {nc, stream} : !mgpu.ptr<bf16>

// OFF-NOT: stream

// TWICE: schedule: @row_col_stats_k0: row_fused {{.*}} fast=no
// TWICE: note: @row_col_stats_k0: stream-loads not taken: a second pass over the row would load again from global memory what the first marked evict-first

// SHARED-NOT: stream_loads

// ATTR: morf.schedule = {{{.*}}stream_loads = 1, threads = 256

// BAD: bad.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'mloop.parallel' op 'morf.schedule' entry 'stream_loads' must be 0 or 1
// BADOPT: option 'stream-loads' must be 'auto', 'true' or 'false', got 'maybe'
// BADCOPIES: option 'stream-copies' expects true or false, got 'maybe'

// STAGED: mgpu.func @colmax_rowsum_k0
// STAGED: mgpu.copy_async %{{[0-9]+}}[%{{[0-9]+}}], %arg{{[0-9]+}}[%{{[0-9]+}}] {stream, width = 8} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
// STAGED-NOT: mgpu.copy_async %{{[0-9]+}}[%{{[0-9]+}}], %arg{{[0-9]+}}[%{{[0-9]+}}] {width

// STAGED-DEFAULT: mgpu.func @colmax_rowsum_k0
// STAGED-DEFAULT-NOT: mgpu.copy_async {{.*}}stream
// STAGED-DEFAULT: mgpu.copy_async %{{[0-9]+}}[%{{[0-9]+}}], %arg{{[0-9]+}}[%{{[0-9]+}}] {width = 8}

// STAGED-PTX: .visible .entry colmax_rowsum_k0(
// STAGED-PTX: createpolicy.fractional.L2::evict_first.b64 [[POL:%rd[0-9]+]], 1.0;
// STAGED-PTX-NEXT: cp.async.cg.shared.global.L2::cache_hint [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, [[POL]];

// STAGED-WRITES: mgpu.func @rmsnorm_bwd_k0
// STAGED-WRITES-NOT: stream
// STAGED-WRITES: mgpu.copy_async %{{[0-9]+}}[%{{[0-9]+}}], %arg{{[0-9]+}}[%{{[0-9]+}}] {width = 8}
