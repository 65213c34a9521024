//! Thread and block ids (x dimension), all of type `index`:
//!
//! ```mlir
//! %t = mgpu.thread_id : index
//! %b = mgpu.block_id : index
//! %bd = mgpu.block_dim : index
//! %gd = mgpu.grid_dim : index
//! %l = mgpu.lane_id : index
//! %w = mgpu.warp_id : index
//! ```
//!
//! `lane_id` is `thread_id % 32` and `warp_id` is `thread_id / 32`.

use morf_ir::define_op;
use morf_ir::opdef::Index;

use super::{interpret_in_kernel_only, parse_typed_nullary, print_typed_nullary};

define_op! {
    /// `%t = mgpu.thread_id : index`: the thread's index in its block.
    pub struct ThreadIdOp("mgpu.thread_id") {
        summary: "the thread's index in its block",
        traits: [PURE],
        results: [thread_id: Index],
        format: (parse_typed_nullary, print_typed_nullary),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// `%b = mgpu.block_id : index`: the block's index in the grid.
    pub struct BlockIdOp("mgpu.block_id") {
        summary: "the block's index in the grid",
        traits: [PURE],
        results: [block_id: Index],
        format: (parse_typed_nullary, print_typed_nullary),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// `%bd = mgpu.block_dim : index`: the number of threads per block.
    pub struct BlockDimOp("mgpu.block_dim") {
        summary: "the number of threads per block",
        traits: [PURE],
        results: [block_dim: Index],
        format: (parse_typed_nullary, print_typed_nullary),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// `%gd = mgpu.grid_dim : index`: the number of blocks in the grid.
    pub struct GridDimOp("mgpu.grid_dim") {
        summary: "the number of blocks in the grid",
        traits: [PURE],
        results: [grid_dim: Index],
        format: (parse_typed_nullary, print_typed_nullary),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// `%l = mgpu.lane_id : index`: the thread's lane in its warp (`thread_id % 32`).
    pub struct LaneIdOp("mgpu.lane_id") {
        summary: "the thread's lane in its warp (thread_id % 32)",
        traits: [PURE],
        results: [lane_id: Index],
        format: (parse_typed_nullary, print_typed_nullary),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// `%w = mgpu.warp_id : index`: the thread's warp in its block (`thread_id / 32`).
    pub struct WarpIdOp("mgpu.warp_id") {
        summary: "the thread's warp in its block (thread_id / 32)",
        traits: [PURE],
        results: [warp_id: Index],
        format: (parse_typed_nullary, print_typed_nullary),
        interpret: interpret_in_kernel_only,
    }
}
