//! `morf-gpu`: the `mgpu` dialect, morf's GPU level, and its CPU simulator.
//!
//! Kernels (`mgpu.func`), launches (`mgpu.launch`), thread ids, global and shared memory,
//! barriers, shuffles and warp reductions: the level that PTX is emitted from. The namespace
//! is `mgpu` because upstream `mlir-opt` owns `gpu`. Kernel bodies also hold `mloop` scalar
//! ops and `mloop.for`; this crate does not depend on `morf-loop` but runs them through their
//! registered `interpret` hooks (see `docs/dialects/gpu.md` for the full reference).
//!
//! Ops, by group, each one [`morf_ir::define_op!`] item with a typed handle re-exported from
//! [`ops`] (`morf_gpu::ops::LoadOp`):
//!
//! - [`ops::kernel`]: `func`, `return`, `launch`, `resident_blocks` ([`ops::FuncOp`],
//!   [`ops::ReturnOp`], [`ops::LaunchOp`], [`ops::ResidentBlocksOp`]);
//! - [`ops::ids`]: `thread_id`, `block_id`, `block_dim`, `grid_dim`, `lane_id`, `warp_id`;
//! - [`ops::memory`]: `load`, `store`, `load_vec`, `store_vec`, `atomic_rmw`, `shared_alloc`,
//!   `dynamic_shared`, `barrier`;
//! - [`ops::warp`]: `shuffle`, `warp_reduce`, `warp_barrier`;
//! - [`ops::control`]: `if`, `yield`.
//!
//! [`sim`] runs `mgpu.launch` on the CPU: block by block, all threads of a block in lockstep
//! with an activity mask; [`races`] checks its shared-memory accesses for races.
//!
//! ```
//! let mut ctx = morf_ir::Context::new();
//! morf_gpu::register(&mut ctx);
//! let src = "mgpu.func @k(%p: !mgpu.ptr<f32>) kernel {
//!   %t = mgpu.thread_id : index
//!   %v = mgpu.load %p[%t] : !mgpu.ptr<f32>
//!   mgpu.store %v, %p[%t] : !mgpu.ptr<f32>
//!   mgpu.return
//! }";
//! let m = morf_ir::parse_source(&mut ctx, "k.mlir", src, 0).unwrap();
//! morf_ir::verify(&ctx, m).unwrap();
//! ```
#![warn(missing_docs)]

pub mod ops;
pub mod races;
pub mod sim;
pub mod types;

use morf_ir::{Context, DialectInfo};

use ops::*;

pub use types::{is_ptr, ptr_parts, ptr_type, PTR, SHARED};

/// Registers the `mgpu` dialect, its `!mgpu.ptr` type and its ops into `ctx`.
pub fn register(ctx: &mut Context) {
    let r = ctx.registry_mut();
    r.register_dialect(DialectInfo {
        name: "mgpu",
        summary: "kernels, threads, shared memory and shuffles",
        materialize_constant: None,
    });
    r.register_type(types::PTR, types::verify_ptr_type);
    for info in [
        FuncOp::info(),
        ReturnOp::info(),
        LaunchOp::info(),
        ResidentBlocksOp::info(),
        ThreadIdOp::info(),
        BlockIdOp::info(),
        BlockDimOp::info(),
        GridDimOp::info(),
        LaneIdOp::info(),
        WarpIdOp::info(),
        LoadOp::info(),
        StoreOp::info(),
        LoadVecOp::info(),
        StoreVecOp::info(),
        AtomicRmwOp::info(),
        CopyAsyncOp::info(),
        CopyAsyncCommitOp::info(),
        CopyAsyncWaitOp::info(),
        SharedAllocOp::info(),
        DynamicSharedOp::info(),
        BarrierOp::info(),
        GridBarrierOp::info(),
        GridTailOp::info(),
        ClusterStoreOp::info(),
        ClusterArriveOp::info(),
        ClusterWaitOp::info(),
        ShuffleOp::info(),
        WarpReduceOp::info(),
        WarpBarrierOp::info(),
        IfOp::info(),
        WorkLoopOp::info(),
        YieldOp::info(),
    ] {
        r.register_op(info);
    }
}
