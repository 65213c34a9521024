//! Generic transformations that work on any dialect: canonicalization, common
//! subexpression elimination and dead code elimination.

pub mod canonicalize;
pub mod cse;
pub mod dce;
pub mod invariant_divisor_to_reciprocal;
pub mod loop_coalesce;
pub mod loop_fuse;
pub mod loop_interchange;
pub mod loop_invariant_code_motion;
pub mod loop_map;
pub mod loop_partial_accumulate;
pub mod loop_split;
pub mod loop_tile;
pub mod loop_unroll;
pub(crate) mod loop_utils;
