//! `morf`: the embedding API of morf, for researchers who drive the compiler from Rust.
//!
//! What this crate owns: nothing of the compiler itself, only the entry point. It
//! re-exports every morf crate as a module ([`ir`], [`tensor`], [`loops`], [`gpu`],
//! [`passes`], [`engine`], [`runtime`]) so that one dependency is enough, and it adds a
//! [`Session`]: a [`Context`] with every morf dialect registered and a
//! [`PassRegistry`] with every morf pass and named pipeline, with
//! one method per step of a compile and a run, and one [`Error`] type for all of them.
//! `docs/embedding.md` is the guide; `examples/standalone/` is an out-of-tree crate that
//! adds its own op and pass through this API.
//!
//! # Guide
//!
//! 1. [`Session::new`]; add your own dialects ([`Session::context_mut`], then your
//!    dialect's `register(ctx)`), passes ([`Session::register_pass`]) and named
//!    pipelines ([`Session::register_pipeline`]).
//! 2. [`Session::parse`] a module (parsed and verified; errors are diagnostics with
//!    `file:line:col`).
//! 3. Transform it in place with [`Session::run_pipeline`]: a named pipeline (`gpu`,
//!    `fuse`, ...) or a textual one (`builtin.module(canonicalize,cse)`), verified after
//!    every pass. [`Session::clone_module`] keeps a copy first.
//! 4. Read it: [`Session::print`], and [`Session::emit_ptx`] once it is at the GPU level.
//! 5. Run it with [`Session::run`] on a [`Device`]: the fp64 interpreter
//!    ([`Device::Interp`]), the CPU GPU simulator ([`Device::Sim`]) or a CUDA GPU
//!    ([`Device::Gpu`]). A module without kernels is lowered first, on a clone, by the
//!    engine's pipeline ([`Session::set_engine_options`]; `gpu` by default); a module with
//!    kernels runs as it is. [`Session::run_checked`] also compares every output with the
//!    fp64 interpreter.
//!
//! # Example
//!
//! ```
//! use morf::{Device, Inputs, Session};
//!
//! let text = "func.func @scale(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {\n\
//!             \x20 %p = mtensor.mul %x, %y : tensor<4xf32>\n\
//!             \x20 %z = mtensor.add %p, %x : tensor<4xf32>\n\
//!             \x20 func.return %z : tensor<4xf32>\n\
//!             }\n";
//! let mut session = Session::new();
//! let module = session.parse("scale.mlir", text)?;
//! let inputs = Inputs::new().array("x", vec![4], vec![1.0, 2.0, 3.0, 4.0]).array("y", vec![4], vec![2.0; 4]);
//!
//! // The fp64 interpreter, then the GPU simulator (lowered by the `gpu` pipeline on a clone).
//! let interp = session.run(module, Device::Interp, &inputs)?;
//! assert_eq!(interp.array(0), Some(&(vec![4], vec![3.0, 6.0, 9.0, 12.0])));
//! let sim = session.run_checked(module, Device::Sim, &inputs)?;
//! assert_eq!(sim.array(0), interp.array(0));
//! assert!(sim.launches > 0 && sim.all_ok());
//!
//! // Lower a copy by hand and emit its PTX.
//! let lowered = session.clone_module(module);
//! session.run_pipeline(lowered, "builtin.module(canonicalize,cse)")?;
//! session.run_pipeline(lowered, "gpu")?;
//! assert!(session.print(lowered).contains("mgpu.func"));
//! let ptx = session.emit_ptx(lowered)?;
//! assert!(ptx.contains(".entry"));
//! # Ok::<(), morf::Error>(())
//! ```
#![warn(missing_docs)]

use std::collections::HashMap;

/// The execution engine (`morf-engine`): compile, bind, run and check.
pub use morf_engine as engine;
/// The GPU dialect (`morf-gpu`, `mgpu.*`) and its CPU simulator.
pub use morf_gpu as gpu;
/// The core IR (`morf-ir`): context, ops, types, parser and printer, verifier, interpreter,
/// pass manager and the `define_op!` macro.
pub use morf_ir as ir;
/// The loop dialect (`morf-loop`, `mloop.*`).
pub use morf_loop as loops;
/// Every pass, named pipeline and the PTX emitter (`morf-passes`).
pub use morf_passes as passes;
/// The thin CUDA runtime (`morf-runtime`).
pub use morf_runtime as runtime;
/// The tensor dialect (`morf-tensor`, `mtensor.*`).
pub use morf_tensor as tensor;

/// The comparison of one output with the fp64 interpreter ([`Session::run_checked`]).
pub use morf_engine::OutputCheck;
/// Where a module runs, how the engine lowers it, and where its inputs come from.
pub use morf_engine::{Device, EngineOptions, Inputs};
/// A pass, and the registry entry that creates one ([`Session::register_pass`]).
pub use morf_ir::pass::{NamedPipeline, Pass, PassInfo};
/// The IR context a [`Session`] owns.
pub use morf_ir::Context;
/// The handle of an op (a module, a function, ...).
pub use morf_ir::OpId;

use morf_engine::{Engine, EngineError};
use morf_ir::interp::RtValue;
use morf_ir::pass::PassRegistry;

/// Why a step of a [`Session`] failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A diagnostic of the parser, the verifier, a pass, the PTX emitter or the interpreter,
    /// rendered with its `file:line:col` prefix, source line and caret.
    #[error("{0}")]
    Diagnostic(String),
    /// Any other error of the engine: a pipeline that does not exist or does not parse, an
    /// argument that cannot be bound, no GPU, ...
    #[error(transparent)]
    Engine(EngineError),
}

impl From<EngineError> for Error {
    fn from(e: EngineError) -> Error {
        match e {
            EngineError::Diagnostic(d) => Error::Diagnostic(d),
            e => Error::Engine(e),
        }
    }
}

/// The results of [`Session::run`]: owned, so the session stays usable.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// One value per result of the function, in order (tensors, buffers or scalars).
    pub values: Vec<RtValue>,
    /// The shape and values of each result (a scalar has shape `[]`), in f64.
    pub arrays: Vec<(Vec<usize>, Vec<f64>)>,
    /// Kernel launches of the run (0 on the interpreter).
    pub launches: usize,
    /// The names of the kernels that ran (empty on the interpreter).
    pub kernels: Vec<String>,
    /// Warnings about the inputs (values rounded to their type, ...).
    pub warnings: Vec<String>,
    /// One check per output against the fp64 interpreter ([`Session::run_checked`]);
    /// empty after [`Session::run`].
    pub checks: Vec<OutputCheck>,
}

impl RunOutput {
    /// The shape and values of result `i`.
    pub fn array(&self, i: usize) -> Option<&(Vec<usize>, Vec<f64>)> {
        self.arrays.get(i)
    }

    /// Whether every check passed (true when nothing was checked).
    pub fn all_ok(&self) -> bool {
        self.checks.iter().all(|c| c.ok())
    }
}

/// A context with every morf dialect and a registry with every morf pass and named
/// pipeline; the methods parse, transform, print, emit PTX and run (see the crate docs).
pub struct Session {
    ctx: Context,
    passes: PassRegistry,
    engine_options: EngineOptions,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// A session with the `mtensor`, `mloop` and `mgpu` dialects (unregistered dialects
    /// refused), every pass and named pipeline of `morf-passes`, and the engine's default
    /// options (pipeline `gpu`, no size hints, GPU 0).
    pub fn new() -> Session {
        let mut passes = PassRegistry::default();
        morf_passes::register_all(&mut passes);
        Session { ctx: morf_engine::new_context(false), passes, engine_options: EngineOptions::default() }
    }

    /// The context (every module of the session lives in it).
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The context, to register a dialect (`my_dialect::register(session.context_mut())`)
    /// or to build and rewrite IR directly.
    pub fn context_mut(&mut self) -> &mut Context {
        &mut self.ctx
    }

    /// The passes and named pipelines [`Session::run_pipeline`] knows.
    pub fn passes(&self) -> &PassRegistry {
        &self.passes
    }

    /// Adds a pass (replacing one of the same name); pipelines can then name it.
    pub fn register_pass(&mut self, info: PassInfo) {
        self.passes.register(info);
    }

    /// Adds a named pipeline (replacing one of the same name).
    pub fn register_pipeline(&mut self, pipeline: NamedPipeline) {
        self.passes.register_pipeline(pipeline);
    }

    /// The options the engine compiles with in [`Session::run`].
    pub fn engine_options(&self) -> &EngineOptions {
        &self.engine_options
    }

    /// Sets the options the engine compiles with in [`Session::run`] (its lowering
    /// pipeline, size hints, GPU ordinal, tuning cache). The pipeline is looked up in
    /// [`Session::passes`], so it may be one you registered, running your own passes.
    pub fn set_engine_options(&mut self, options: EngineOptions) {
        self.engine_options = options;
    }

    /// Parses `text` (named `name` in diagnostics) and verifies it; returns the module.
    pub fn parse(&mut self, name: &str, text: &str) -> Result<OpId, Error> {
        Ok(morf_engine::load_module(&mut self.ctx, name, text)?)
    }

    /// Verifies `module` (after you rewrote it directly, say).
    pub fn verify(&self, module: OpId) -> Result<(), Error> {
        morf_ir::verify(&self.ctx, module).map_err(|d| Error::Diagnostic(self.ctx.render(&d)))
    }

    /// A copy of `module` in the same context (to lower it and keep the original).
    pub fn clone_module(&mut self, module: OpId) -> OpId {
        self.ctx.clone_op(module, &mut HashMap::new())
    }

    /// Runs `pipeline` on `module`, in place, verifying after each pass: a named pipeline
    /// of [`Session::passes`] (`gpu`, `gpu-unfused`, `fuse`, or one you registered) or a
    /// textual pipeline as `morf-opt --pass-pipeline` takes it
    /// (`builtin.module(canonicalize,cse)`). Size-specialized passes get the module's
    /// `morf.size_hints`, or the size hints of [`Session::engine_options`].
    pub fn run_pipeline(&mut self, module: OpId, pipeline: &str) -> Result<(), Error> {
        let hints = self.engine_options.size_hints.clone();
        morf_engine::compile::run_named_pipeline(&mut self.ctx, module, &self.passes, pipeline, hints.as_deref())?;
        Ok(())
    }

    /// `module` in morf's textual form.
    pub fn print(&self, module: OpId) -> String {
        morf_ir::print_op(&self.ctx, module, &morf_ir::PrintOptions::default())
    }

    /// The PTX of every kernel of `module` (a module at the GPU level, as the `gpu`
    /// pipeline leaves it), with the emitter's default options.
    pub fn emit_ptx(&self, module: OpId) -> Result<String, Error> {
        let opts = morf_passes::target::ptx::PtxOptions::default();
        morf_passes::target::ptx::emit_module(&self.ctx, module, &opts)
            .map_err(|d| Error::Diagnostic(self.ctx.render(&d)))
    }

    /// Runs the only function of `module` on `device` with `inputs` (in-memory arrays,
    /// `.npy` files or generated values, see [`Inputs`]). `module` is left as it is.
    /// [`Device::Gpu`] without a CUDA driver is [`Error::Engine`] with
    /// [`EngineError::NoGpu`].
    pub fn run(&mut self, module: OpId, device: Device, inputs: &Inputs) -> Result<RunOutput, Error> {
        self.run_inner(module, None, device, inputs, false)
    }

    /// [`Session::run`], then compares every output with the fp64 interpreter of the
    /// function as written ([`RunOutput::checks`], [`RunOutput::all_ok`]).
    pub fn run_checked(&mut self, module: OpId, device: Device, inputs: &Inputs) -> Result<RunOutput, Error> {
        self.run_inner(module, None, device, inputs, true)
    }

    /// [`Session::run`] (or [`Session::run_checked`] when `check`) of function `@entry`
    /// of a module with several functions.
    pub fn run_function(
        &mut self,
        module: OpId,
        entry: &str,
        device: Device,
        inputs: &Inputs,
        check: bool,
    ) -> Result<RunOutput, Error> {
        self.run_inner(module, Some(entry), device, inputs, check)
    }

    fn run_inner(
        &mut self,
        module: OpId,
        entry: Option<&str>,
        device: Device,
        inputs: &Inputs,
        check: bool,
    ) -> Result<RunOutput, Error> {
        let options =
            EngineOptions { passes: Some(std::sync::Arc::new(self.passes.clone())), ..self.engine_options.clone() };
        let engine = Engine::new(device, options)?;
        let compiled = engine.compile(&mut self.ctx, module, entry)?;
        let args = compiled.bind(inputs)?;
        let out = compiled.run(&args)?;
        let checks = if check { compiled.check(&args, &out)? } else { Vec::new() };
        let arrays = (0..out.len()).map(|i| out.array(i).unwrap_or_default()).collect();
        Ok(RunOutput {
            arrays,
            launches: out.launches,
            kernels: compiled.kernels().to_vec(),
            warnings: args.warnings,
            checks,
            values: out.values,
        })
    }
}
