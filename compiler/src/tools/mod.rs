//! Tool drivers as libraries, so that each binary stays a thin `main` and tests can call
//! them in-process.
//!
//! - [`mod@opt_main`]: the `morf-opt` driver (parse, verify, run passes, print), in the
//!   style of `mlir-opt`;
//! - [`verify_diagnostics`]: `--verify-diagnostics` (`expected-error` annotations);
//! - [`split_input`]: `--split-input-file` (`// -----` chunks).

pub mod opt_main;
pub mod split_input;
pub mod verify_diagnostics;

pub use opt_main::{
    opt_main, opt_main_with, MlirExporter, MlirImporter, ModulePipeline, OptConfig, PipelineChoice, PipelineHook,
    PtxEmitter, PtxFlags, PtxFlagsCheck,
};
