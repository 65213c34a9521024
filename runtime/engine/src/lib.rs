//! `morf-engine`: morf's execution engine (like MLIR's `ExecutionEngine`). It owns
//! everything between an IR module and the numbers a run produces:
//!
//! - compiling a module for a device ([`Device`]: the fp64 reference interpreter, the
//!   CPU GPU simulator, or a CUDA GPU through `morf-runtime`): the named pipelines with
//!   size hints, PTX emission and loading ([`compile`]), and the host executor of
//!   GPU-level functions ([`gpu_exec`]);
//! - binding a function's arguments from `.npy` files, in-memory arrays or generated
//!   values, and writing its results as `.npy` ([`bind`], [`npy`]);
//! - running and reading results ([`Engine`], [`Compiled`], [`Outputs`]), and whole runs
//!   as `morf-run` makes them ([`run`]);
//! - checking outputs against the fp64 interpreter ([`check`], tolerances from
//!   [`morf_ir::numerics`]);
//! - estimating the memory of a run before allocating it ([`memory`]);
//! - timing compiled programs on the GPU with CUDA events ([`timing`]);
//! - benchmarking a function fused vs unfused vs a copy-kernel floor, with the report's
//!   table and JSON ([`mod@bench`], what `morf-bench` runs).
//!
//! `morf-run` and `morf-bench` are thin command-line shells around this crate; see
//! `docs/engine.md`. Every user error is an [`EngineError`], never a panic; errors in
//! the IR stay diagnostics rendered with `file:line:col`.
//!
//! ```
//! use morf_engine::{Device, Engine, EngineOptions, Inputs};
//!
//! let text = "func.func @add(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {\n\
//!             \x20 %z = mtensor.add %x, %y : tensor<4xf32>\n\
//!             \x20 func.return %z : tensor<4xf32>\n\
//!             }\n";
//! let mut ctx = morf_engine::new_context(false);
//! let module = morf_engine::load_module(&mut ctx, "add.mlir", text).unwrap();
//! let engine = Engine::new(Device::Sim, EngineOptions::default()).unwrap();
//! let compiled = engine.compile(&mut ctx, module, None).unwrap();
//! let inputs = Inputs::new().array("x", vec![4], vec![1.0, 2.0, 3.0, 4.0]).array("y", vec![4], vec![0.5; 4]);
//! let args = compiled.bind(&inputs).unwrap();
//! let out = compiled.run(&args).unwrap();
//! assert_eq!(out.array(0).unwrap(), (vec![4], vec![1.5, 2.5, 3.5, 4.5]));
//! assert!(compiled.check(&args, &out).unwrap().iter().all(|c| c.ok()));
//! ```
#![warn(missing_docs)]

pub mod bench;
pub mod bind;
pub mod check;
pub mod compile;
mod engine;
pub mod gpu_exec;
pub mod memory;
pub mod npy;
pub mod run;
pub mod timing;
pub mod tuning;

/// The commit this build of the engine comes from (`git rev-parse --short=12 HEAD`), with
/// `-dirty` when the workspace's sources differed from it at build time, `unknown` outside a
/// git checkout. Benchmark reports carry it (with [`VERSION`]), so that a figure names the
/// code that produced it.
pub const BUILD_COMMIT: &str = env!("MORF_BUILD_COMMIT");

/// The workspace's version (`Cargo.toml`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub use bench::{
    run_bench, run_bench_file, run_bench_file_with_phases, run_bench_with_phases, BenchConfig, BenchError, BenchPhase,
    BenchReport,
};
pub use bind::{
    bind_arguments, estimate_interpreter_run, load_module, new_context, parse_input_spec, parse_random_spec,
    parse_sizes_flags, plan_arguments, read_source, select_function, write_error, write_results, InputArray,
    ResultSummary, RunOptions, RunReport, MAX_SOURCE_BYTES,
};
pub use check::{compare_outputs, compare_outputs_judged, compare_values, OutputCheck, ValueComparison};
pub use compile::{text_has_kernels, GpuProgram, GPU_PIPELINE};
pub use engine::{Args, Compiled, Device, Engine, EngineOptions, Inputs, Outputs};
pub use run::{run_source, run_source_gpu, run_source_sim, run_source_sim_compiled, GpuRunReport};
pub use timing::CallTiming;

/// Why compiling, binding, running or checking failed. The `Display` text is the message
/// after `morf-run: error: `, except for [`EngineError::Diagnostic`], which is printed as
/// it is.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A diagnostic of the parser, verifier, a pass or the interpreter, already rendered
    /// with its `file:line:col` prefix, source line and caret.
    #[error("{0}")]
    Diagnostic(String),
    /// A problem with one function argument (its input file, shape or dtype).
    #[error("argument %{name}: {message}")]
    Argument {
        /// The argument's SSA name, without `%`.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// No CUDA driver (or no device): the GPU work could not start. Holds the runtime's
    /// message (`morf_runtime::NO_CUDA_MESSAGE`).
    #[error("no GPU: {0}")]
    NoGpu(String),
    /// Any other problem (options, files, the choice of function, the GPU).
    #[error("{0}")]
    Other(String),
}
