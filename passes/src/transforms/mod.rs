//! Generic transformations that work on any dialect: canonicalization, common
//! subexpression elimination and dead code elimination.

pub mod canonicalize;
pub mod cse;
pub mod dce;
