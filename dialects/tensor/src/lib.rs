//! placeholder
pub mod interp {
    pub mod array;
}
