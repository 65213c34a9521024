// The unfused pipeline's kernels take vector forms (docs/conversion-loop-to-gpu.md, "The
// unfused pipeline's kernels"): a pointwise nest (thread_per_point) and a split-K column
// reduction (split_partial) give each thread `vector` consecutive columns (16 bytes of the
// widest element accessed along the row, halved while it does not divide N), with vector
// loads and stores of the [i, j] and [j] buffers, one scalar load per vector of the [i] ones,
// a run-time guard (row strides multiples of the vector, broadcast clamps the identity) and a
// scalar loop for the columns past the last full vector (all of them when the guard fails); a
// plain row reduction with N hinted takes the row kernel's register-resident form (row_fused
// without partials). A nest without a vector form keeps the scalar one, and the report says why.
//
// RMSNorm backward at 576000 x 384 (bf16): vectors of 8 (16 bytes) everywhere.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=576000,N=384 | FileCheck %s --check-prefix=IR
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=576000,N=384 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=576000,N=384 --schedule-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=R384
// N = 100: vectors of 4 bf16 (8 bytes); N = 1: none for the column reduction, packed rows
// for the pointwise nest; N = 5120: vectors of 8, a CTA per row.
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=4096,N=100 --emit=ptx | FileCheck %s --check-prefix=PTX100
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=4096,N=100 --schedule-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=R100
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=4096,N=1 --schedule-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=R1
// The split-K partial's blocks: at least 16 rows for a body of 4 or more instructions a point
// (RMSNorm backward's dw above, 8), 32 for a plain max of a load (colmax_rowsum's, 2):
// RUN: morf-opt %S/../../../examples/colmax_rowsum.mlir --pipeline=gpu-unfused --size-hints M=4096,N=100 --schedule-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIGHT
// LIGHT: schedule: @colmax_rowsum_k0: split_partial {{.*}} vector=4 {{.*}} split_rows=32
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=4096,N=5120 --schedule-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=R5120
// GELU backward's dx at N = 17 (rows of 34 bytes, not whole vectors): every access is at the
// point's flat position (x, dy and dx over the same [M, N]), so the nest takes flat vectors of
// 8 across rows and a scalar tail over the last M * N mod 8 points, no division in either.
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pipeline=gpu-unfused --size-hints M=4096,N=17 --schedule-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAT
// RUN: morf-opt %S/../../../examples/gelu_bwd_bias.mlir --pipeline=gpu-unfused --size-hints M=4096,N=17 | FileCheck %s --check-prefix=FLATIR
// LayerNorm backward (two row reductions, two column reductions) and without size hints:
// the vectors from 16 bytes (guarded), the row reductions in their looped form.
// RUN: morf-opt %S/../../../examples/layernorm_bwd.mlir --pipeline=gpu-unfused --size-hints M=65536,N=1024 --schedule-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=LN
// RUN: morf-opt %S/../../../examples/rmsnorm_bwd.mlir --pipeline=gpu-unfused --schedule-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOHINT
// A split-K partial walks its block of rows four at a time (the four rows' loads issued
// before any is combined, then combined in row order: the same sum), the rest one at a time;
// softmax_fwd_colsum's column sum divides a thread's vector by the row's sum: one reciprocal a
// row and a multiply a column (`reciprocal-divisors`, on by default), so its vectors are 16
// bytes (8 bf16: no correctly rounded division a column, a subroutine call in ptxas that
// limits them to 4); each element divided, in vectors of 4, under `reciprocal-divisors=false`.
// RUN: morf-opt %S/../../../examples/softmax_fwd_colsum.mlir --pipeline=gpu-unfused --size-hints M=65536,N=1024 | FileCheck %s --check-prefix=RECIP
// RUN: morf-opt %S/../../../examples/softmax_fwd_colsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu{reciprocal-divisors=false})' --size-hints M=65536,N=1024 | FileCheck %s --check-prefix=EXACT
// `reciprocal-divisors` takes true or false; anything else is an error, exit 1:
// RUN: not morf-opt %S/../../../examples/softmax_fwd_colsum.mlir --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{reciprocal-divisors=maybe})' 2>&1 | FileCheck %s --check-prefix=BADRECIP
// BADRECIP: option 'reciprocal-divisors' expects true or false, got 'maybe'
// This file's functions: a 1-D pointwise nest (vectors and a scalar tail), a transposed operand
// (no vector form) and the option vector=1 (none).
// RUN: morf-opt %s --split-input-file --pipeline=gpu-unfused | FileCheck %s --check-prefix=TAIL
// RUN: morf-opt %s --split-input-file --pipeline=gpu-unfused --schedule-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY
// RUN: morf-opt %s --split-input-file --pass-pipeline='builtin.module(lower-tensor-to-loop,lower-loop-to-gpu{vector=1 report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOVEC

// The row reduction (c = mean(dy * w * xhat)): the row kernel's register-resident form, the
// [j] vector w hoisted, the rows of x and dy loaded once as vectors of 8.
// IR-LABEL: mgpu.func @rmsnorm_bwd_k0(
// IR-SAME: morf.schedule = "RowFused threads=256 threads-per-row=32 rows-per-cta=8 {{.*}} fast: N=384 vector=8 chunks=2"
// IR: mgpu.load_vec %{{.*}} {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: mgpu.warp_reduce sum
// The column reduction dw = sum_i dy * xhat: a thread per (block of 256 rows, 8 columns), the
// rows in order into 8 f32 partials, one vector load of x and dy and one scalar load of
// rstd[i] per row; the columns past the last full vector in the scalar loop.
// IR-LABEL: mgpu.func @rmsnorm_bwd_k1(
// IR-SAME: morf.schedule = "SplitPartial threads=256 {{.*}} vector=8 {{.*}} split-rows=256"
// IR: = mloop.for %[[ROW:[a-z0-9]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// IR-NEXT: %[[OFF:.*]] = mloop.mul %[[ROW]], %{{.*}} : index
// IR: mgpu.load_vec %{{.*}} {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: mgpu.load_vec %{{.*}} {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: %[[R:.*]] = mloop.min %[[ROW]], %{{.*}} : index
// IR-NEXT: mgpu.load %{{.*}}[%[[R]]] {nc} : !mgpu.ptr<f32>
// IR: mgpu.store %{{.*}} : !mgpu.ptr<f32>
// IR: mgpu.load %{{.*}} {nc} : !mgpu.ptr<bf16>
// IR-LABEL: mgpu.func @rmsnorm_bwd_k1_final(
// The pointwise dx nest: a thread per 8 columns of a row, rstd[i] and c[i] once per vector,
// w[j], x[i, j], dy[i, j] as vectors, dx stored as one vector; then the scalar loop.
// IR-LABEL: mgpu.func @rmsnorm_bwd_k2(
// IR-SAME: morf.schedule = "ThreadPerPoint threads=256 threads-per-row=1 rows-per-cta=1 vector=8
// IR: mloop.for {{.*}} iter_args
// IR: mgpu.load %{{.*}} {nc} : !mgpu.ptr<f32>
// IR: mgpu.load_vec %{{.*}} {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: mgpu.load_vec %{{.*}} {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: mgpu.load_vec %{{.*}} {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// IR: mgpu.store_vec {{.*}} : !mgpu.ptr<bf16>
// IR: mloop.for {{.*}} iter_args
// IR: mgpu.store %{{.*}} : !mgpu.ptr<bf16>
// IR-NOT: mgpu.func

// RECIP-LABEL: mgpu.func @softmax_fwd_colsum_k2(
// RECIP-SAME: morf.schedule = "SplitPartial {{.*}} vector=8
// RECIP: %[[FOUR:.*]] = mloop.constant 4 : index
// RECIP: mloop.for %[[ROW:[a-z0-9]+]] = %{{.*}} to %{{.*}} step %[[FOUR]] iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// RECIP: mgpu.load_vec
// RECIP: mloop.exp
// RECIP: %[[S0:.*]] = mgpu.load %{{.*}}[%[[ROW]]] {nc} : !mgpu.ptr<f32>
// RECIP-NEXT: %[[R0:.*]] = mloop.div %{{.*}}, %[[S0]] : f32
// RECIP-NEXT: mloop.mul %{{.*}}, %[[R0]] : f32
// RECIP-NEXT: mloop.mul %{{.*}}, %[[R0]] : f32
// RECIP-NEXT: mloop.mul %{{.*}}, %[[R0]] : f32
// RECIP-NEXT: mloop.mul %{{.*}}, %[[R0]] : f32
// RECIP-NEXT: mloop.mul %{{.*}}, %[[R0]] : f32
// RECIP-NEXT: mloop.mul %{{.*}}, %[[R0]] : f32
// RECIP-NEXT: mloop.mul %{{.*}}, %[[R0]] : f32
// RECIP-NEXT: mloop.mul %{{.*}}, %[[R0]] : f32
// RECIP: mgpu.load_vec
// RECIP: mloop.div
// RECIP: mgpu.load_vec
// RECIP: mloop.div
// RECIP: mgpu.load_vec
// RECIP: mloop.div
// RECIP-NOT: mgpu.load_vec
// RECIP: mloop.add
// RECIP: mloop.yield
// The rest of the block, a row an iteration.
// RECIP: mloop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// RECIP: mgpu.load_vec
// RECIP: mloop.div
// RECIP-NOT: mgpu.load_vec
// RECIP: mloop.yield
// RECIP-LABEL: mgpu.func @softmax_fwd_colsum_k2_final(
// EXACT-LABEL: mgpu.func @softmax_fwd_colsum_k2(
// EXACT-SAME: morf.schedule = "SplitPartial {{.*}} vector=4
// EXACT: mloop.exp
// EXACT: mgpu.load %{{.*}} {nc} : !mgpu.ptr<f32>
// EXACT-NEXT: mloop.div %{{.*}}, %{{.*}} : f32
// EXACT-NEXT: mloop.div %{{.*}}, %{{.*}} : f32
// EXACT-NEXT: mloop.div %{{.*}}, %{{.*}} : f32
// EXACT-NEXT: mloop.div %{{.*}}, %{{.*}} : f32

// PTX-LABEL: .entry rmsnorm_bwd_k0(
// PTX: ld.global.nc.v4.b32
// PTX-LABEL: .entry rmsnorm_bwd_k1(
// PTX: ld.global.nc.v4.b32
// PTX: ld.global.nc.v4.b32
// PTX-LABEL: .entry rmsnorm_bwd_k2(
// PTX: ld.global.nc.v4.b32
// PTX: ld.global.nc.v4.b32
// PTX: ld.global.nc.v4.b32
// PTX: st.global.v4.b32

// R384: rmsnorm_bwd.mlir:40:8: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=32 rows_per_cta=8 grid<=1056 vector=4 partials=none fast=yes(N=384 vector=8 chunks=2) (from the heuristic)
// R384-NEXT: rmsnorm_bwd.mlir:40:8: note: @rmsnorm_bwd_k0: a plain row reduction, lowered as a row kernel (no partials)
// R384: rmsnorm_bwd.mlir:48:10: schedule: @rmsnorm_bwd_k1: split_partial threads=256 threads_per_row=1 rows_per_cta=1 grid<=1056 vector=8 partials=none split_rows=256 fast=no (from the heuristic)
// R384-NEXT: rmsnorm_bwd.mlir:48:10: note: @rmsnorm_bwd_k1: split-K partial: at least 256 rows a block, raised at run time until the blocks fit the threads the device holds at once (one wave; split-rows=N fixes it)
// R384-NEXT: rmsnorm_bwd.mlir:48:10: schedule: @rmsnorm_bwd_k1_final: final_reduction
// R384-NEXT: rmsnorm_bwd.mlir:49:9: schedule: @rmsnorm_bwd_k2: thread_per_point threads=256 threads_per_row=1 rows_per_cta=1 grid<=1056 vector=8 partials=none fast=no (from the heuristic)
// R384-NOT: note

// PTX100-LABEL: .entry rmsnorm_bwd_k0(
// PTX100: ld.global.nc.v4.b16
// PTX100-LABEL: .entry rmsnorm_bwd_k1(
// PTX100: ld.global.nc.v4.b16
// PTX100-LABEL: .entry rmsnorm_bwd_k2(
// PTX100: ld.global.nc.v4.b16
// PTX100: st.global.v4.b16

// R100: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=8 {{.*}} fast=yes(N=100 vector=4 chunks=4)
// R100: schedule: @rmsnorm_bwd_k1: split_partial {{.*}} vector=4 {{.*}} split_rows=16
// R100: schedule: @rmsnorm_bwd_k2: thread_per_point {{.*}} vector=4 partials=none

// R1: schedule: @rmsnorm_bwd_k1: split_partial {{.*}} vector=1 partials=none
// R1-NEXT: note: @rmsnorm_bwd_k1: scalar, one point a thread (no vector form): a row of 1 element(s) is not a multiple of 2
// The pointwise nest at N = 1 takes the row form instead (short rows a vector does not fill:
// packed rows, eight a thread).
// R1: schedule: @rmsnorm_bwd_k2: row_fused threads=256 threads_per_row=1 {{.*}} fast=yes(N=1 vector=1 chunks=1 packed-rows=8)
// R1-NEXT: note: @rmsnorm_bwd_k2: a pointwise nest over short rows that its thread-per-point vectors would not fill, lowered as a row kernel

// R5120: schedule: @rmsnorm_bwd_k0: row_fused threads=256 threads_per_row=256 rows_per_cta=1 {{.*}} fast=yes(N=5120 vector=8 chunks=3)
// R5120: schedule: @rmsnorm_bwd_k1: split_partial {{.*}} vector=8
// R5120: schedule: @rmsnorm_bwd_k2: thread_per_point {{.*}} vector=8

// LN: schedule: @layernorm_bwd_k0: row_fused {{.*}} fast=yes(N=1024 vector=8 chunks=4)
// LN: schedule: @layernorm_bwd_k1: row_fused {{.*}} fast=yes(N=1024 vector=8 chunks=4)
// LN: schedule: @layernorm_bwd_k2: split_partial {{.*}} vector=8 {{.*}} split_rows=64
// LN: schedule: @layernorm_bwd_k3: split_partial {{.*}} vector=8 {{.*}} split_rows=64
// LN: schedule: @layernorm_bwd_k4: thread_per_point {{.*}} vector=8

// The column reduction db keeps its scalar split-K form (a thread per column).
// FLAT: schedule: @gelu_bwd_bias_k0: split_partial {{.*}} vector=1
// FLAT-NEXT: note: @gelu_bwd_bias_k0: scalar, one point a thread (no vector form): a row of 17 element(s) is not a multiple of 2
// FLAT: schedule: @gelu_bwd_bias_k1: thread_per_point {{.*}} vector=8 partials=none
// FLAT-NEXT: note: @gelu_bwd_bias_k1: flat vectors: 8 consecutive points of the nest's row-major order a thread, across rows (its rows are not whole vectors of 8; every access is at the point's flat position)

// FLATIR-LABEL: mgpu.func @gelu_bwd_bias_k1(
// FLATIR: %[[TOTAL:.*]] = mloop.mul %{{.*}}, %{{.*}} : index
// FLATIR-NEXT: %[[NVEC:.*]] = mloop.div %[[TOTAL]], %{{.*}} : index
// FLATIR: mloop.for %[[E:.*]] = %{{.*}} to %[[NVEC]] step
// FLATIR-NEXT: %[[F:.*]] = mloop.mul %[[E]], %{{.*}} : index
// FLATIR-NEXT: mgpu.load_vec %{{.*}}[%[[F]]] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
// FLATIR-NOT: mloop.div
// FLATIR-NOT: mloop.rem
// FLATIR: mgpu.store_vec {{.*}}[%[[F]]] : !mgpu.ptr<bf16>
// FLATIR: mloop.for %[[P:.*]] = %{{.*}} to %[[TOTAL]] step
// FLATIR-NEXT: mgpu.load %{{.*}}[%[[P]]] {nc} : !mgpu.ptr<bf16>
// FLATIR-NOT: mloop.div
// FLATIR-NOT: mloop.rem
// FLATIR: mgpu.store %{{.*}}[%[[P]]] : !mgpu.ptr<bf16>
// FLATIR-NEXT: mloop.yield
// FLATIR-NEXT: }
// FLATIR-NEXT: mgpu.return

// NOHINT: schedule: @rmsnorm_bwd_k0: row_reduction {{.*}} fast=no (from the heuristic)
// NOHINT-NEXT: note: @rmsnorm_bwd_k0: no register-resident row form (the row is loaded in a loop): N is not known at compile time (a static dim or size-hints gives the vector form)
// NOHINT-NEXT: note: @rmsnorm_bwd_k0: looped form, the row's loops in order: 8-element vectors
// NOHINT: schedule: @rmsnorm_bwd_k1: split_partial {{.*}} vector=8 {{.*}} split_rows=256
// NOHINT: schedule: @rmsnorm_bwd_k2: thread_per_point {{.*}} vector=8

// A 1-D nest: vectors of 4 f32 over the first M - M mod 4 points (no guard: no row stride),
// the rest one point a thread.
// TAIL-LABEL: mgpu.func @scale_k0(
// TAIL-SAME: vector=4
// TAIL: %[[C4:.*]] = mloop.constant 4 : index
// TAIL: %[[ALL:.*]] = mloop.div %{{.*}}, %[[C4]] : index
// TAIL-NEXT: %[[NV:.*]] = mloop.select %{{.*}}, %[[ALL]], %{{.*}} : index
// TAIL: %[[JS:.*]] = mloop.mul %[[NV]], %[[C4]] : index
// TAIL: mloop.for
// TAIL: %[[J0:.*]] = mloop.mul %{{.*}}, %[[C4]] : index
// TAIL-NEXT: = mgpu.load_vec %{{.*}}[%[[J0]]] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
// TAIL: mgpu.store_vec %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}[%[[J0]]] : !mgpu.ptr<f32>
// TAIL: mloop.for
// TAIL: %[[J:.*]] = mloop.add %[[JS]], %{{.*}} : index
// TAIL-NEXT: mgpu.load %{{.*}}[%[[J]]] {nc} : !mgpu.ptr<f32>
// WHY: schedule: @scale_k0: thread_per_point {{.*}} vector=4 partials=none
// WHY-NOT: note
// WHY: schedule: @addt_k0: thread_per_point {{.*}} vector=1 partials=none
// WHY-NEXT: note: @addt_k0: scalar, one point a thread (no vector form): the column index is not the last index of an access
// NOVEC: schedule: @scale_k0: thread_per_point {{.*}} vector=1 partials=none
// NOVEC-NEXT: note: @scale_k0: scalar, one point a thread (no vector form): the option vector=1
func.func @scale(%x: tensor<?xf32> {morf.dims = ["M"]}) -> tensor<?xf32> {
  %s = mtensor.add %x, %x : tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

func.func @addt(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}, %y: tensor<?x?xf32> {morf.dims = ["N", "M"]}) -> tensor<?x?xf32> {
  %t = mtensor.transpose %y perm [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
  %s = mtensor.add %x, %t : tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}
