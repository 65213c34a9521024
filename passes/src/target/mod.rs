//! Code generation for real targets. Each target reads the GPU-level IR (`mgpu` kernels with
//! `mloop` scalar ops) and produces the text that the runtime loads; it never changes the IR.

pub mod ptx;
