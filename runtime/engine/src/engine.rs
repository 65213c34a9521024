//! The embedding API: an [`Engine`] compiles a module of a context for one [`Device`]
//! ([`Engine::compile`]), the [`Compiled`] function binds [`Inputs`] into [`Args`], runs
//! them ([`Compiled::run`]) and checks the [`Outputs`] against the fp64 interpreter of
//! the function as written ([`Compiled::check`]).
//!
//! Compiling never changes the caller's module: a module that must be lowered is cloned
//! first (in the same context), and the clone is lowered; the original stays the
//! reference of [`Compiled::check`] and the signature that [`Compiled::bind`] binds.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use morf_ir::interp::RtValue;
use morf_ir::{Context, OpId};
use morf_runtime::Gpu;

use crate::bind::{bind_arguments, select_function, write_results, InputArray, ResultSummary, RunOptions};
use crate::check::{compare_outputs_judged, shape_and_data, OutputCheck};
use crate::compile::{
    emit_ptx, has_kernels, pass_registry, run_host_on_simulator, run_named_pipeline, run_on_gpu, runtime_err,
    GPU_PIPELINE,
};
use crate::gpu_exec::kernel_names;
use crate::memory::MemoryLimit;
use crate::EngineError;

/// Where a compiled function runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// The fp64 reference interpreter, on the function as written (nothing is lowered).
    Interp,
    /// The CPU GPU simulator: a module without kernels is lowered by the pipeline and
    /// emitted as PTX (which validates every kernel), then the host function runs on the
    /// interpreter with each kernel launch on `morf_gpu::sim`. A module that already has
    /// kernels runs as it is.
    Sim,
    /// A CUDA GPU through `morf-runtime`: lowered like [`Device::Sim`], emitted as PTX,
    /// loaded, and the host function run by [`crate::gpu_exec::GpuExecutor`].
    Gpu,
}

/// How an [`Engine`] compiles.
#[derive(Clone)]
pub struct EngineOptions {
    /// The named pipeline that lowers a module without kernels ([`GPU_PIPELINE`] by default;
    /// `gpu-unfused` is the baseline without fusion).
    pub pipeline: String,
    /// Size hints for the size-specialized passes, `M=576000,N=384`
    /// ([`crate::compile::pipeline_with_hints`]); the kernels stay correct for other sizes.
    pub size_hints: Option<String>,
    /// The CUDA device of [`Device::Gpu`].
    pub gpu_ordinal: usize,
    /// The tuning cache consulted for a named pipeline with size hints
    /// ([`crate::tuning::TuningSource`]): by default the built-in one, on a GPU whose name
    /// and SM count match an entry; the simulator consults only a given cache, as the H200.
    pub tuning: crate::tuning::TuningSource,
    /// The passes and named pipelines the lowering is looked up in: `None` for morf's own
    /// ([`crate::compile::pass_registry`]); an embedder's registry lets the pipeline name
    /// its own passes and pipelines (the `morf` facade's `Session::run` passes its own).
    pub passes: Option<std::sync::Arc<morf_ir::pass::PassRegistry>>,
}

impl std::fmt::Debug for EngineOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineOptions")
            .field("pipeline", &self.pipeline)
            .field("size_hints", &self.size_hints)
            .field("gpu_ordinal", &self.gpu_ordinal)
            .field("tuning", &self.tuning)
            .field("passes", &self.passes.as_ref().map(|_| "custom registry"))
            .finish()
    }
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            pipeline: GPU_PIPELINE.to_string(),
            size_hints: None,
            gpu_ordinal: 0,
            tuning: crate::tuning::TuningSource::Builtin,
            passes: None,
        }
    }
}

/// Compiles modules for one device; for [`Device::Gpu`] it holds the GPU.
pub struct Engine {
    device: Device,
    options: EngineOptions,
    gpu: Option<Gpu>,
}

impl Engine {
    /// An engine for `device`. [`Device::Gpu`] opens the GPU now: without a CUDA driver
    /// this is [`EngineError::NoGpu`].
    pub fn new(device: Device, options: EngineOptions) -> Result<Engine, EngineError> {
        let gpu = match device {
            Device::Gpu => Some(Gpu::new(options.gpu_ordinal).map_err(runtime_err)?),
            Device::Interp | Device::Sim => None,
        };
        Ok(Engine { device, options, gpu })
    }

    /// The device this engine compiles for.
    pub fn device(&self) -> Device {
        self.device
    }

    /// The options this engine compiles with.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// The GPU ([`Device::Gpu`] only).
    pub fn gpu(&self) -> Option<&Gpu> {
        self.gpu.as_ref()
    }

    /// Compiles function `entry` (or the only function) of `module` for this engine's
    /// device. `module` itself is left as it is: when it must be lowered, a clone is.
    /// Pass and emission errors are diagnostics ([`EngineError::Diagnostic`]).
    pub fn compile<'a>(
        &'a self,
        ctx: &'a mut Context,
        module: OpId,
        entry: Option<&str>,
    ) -> Result<Compiled<'a>, EngineError> {
        let reference = select_function(ctx, module, entry, "the module")?;
        let fname = morf_ir::builtin::symbol_name(ctx, reference).unwrap_or("?").to_string();
        let t0 = Instant::now();
        let kernels_already = has_kernels(ctx, module);
        let lowered = match self.device {
            Device::Interp => None,
            Device::Sim if kernels_already => None,
            Device::Sim | Device::Gpu => {
                let target = if kernels_already {
                    module
                } else {
                    // A tuned schedule for this program, bucket and device, if the cache has one.
                    let device = match &self.gpu {
                        Some(gpu) => crate::tuning::DeviceKey::of(gpu).map_err(runtime_err)?,
                        None => crate::tuning::DeviceKey::default_target(),
                    };
                    let prog = crate::tuning::ProgramRef { ctx, module, func: reference };
                    let own;
                    let reg = match &self.options.passes {
                        Some(r) => r.as_ref(),
                        None => {
                            own = pass_registry();
                            &own
                        }
                    };
                    let (pipeline, hints, note) = crate::tuning::pipeline_for_compile_with(
                        &self.options.tuning,
                        self.gpu.is_some(),
                        prog,
                        &self.options.pipeline,
                        self.options.size_hints.as_deref(),
                        &device,
                        reg,
                    )?;
                    if let Some(n) = note {
                        tracing::info!("{n}");
                    }
                    let clone = ctx.clone_op(module, &mut HashMap::new());
                    run_named_pipeline(ctx, clone, reg, &pipeline, hints.as_deref())?;
                    clone
                };
                let ptx = emit_ptx(ctx, target)?;
                Some((target, ptx))
            }
        };
        let (func, kernels, ptx, loaded) = match lowered {
            None => (reference, Vec::new(), None, None),
            Some((target, ptx)) => {
                let func = morf_ir::builtin::lookup_function(ctx, target, &fname).ok_or_else(|| {
                    EngineError::Other(format!(
                        "the '{}' pipeline left no host function @{fname}",
                        self.options.pipeline
                    ))
                })?;
                let kernels = kernel_names(ctx, target);
                match &self.gpu {
                    // A module lowered here gets spill relief (its bounds go on the clone); one
                    // that came with its kernels is loaded as it is.
                    Some(gpu) if !kernels_already => {
                        let (m, ptx, _) = crate::compile::load_relieved(gpu, ctx, target, ptx, &kernels)?;
                        (func, kernels, Some(ptx), Some(m))
                    }
                    Some(gpu) => {
                        let m = crate::compile::load_as_is(gpu, &ptx, &kernels)?;
                        (func, kernels, Some(ptx), Some(m))
                    }
                    None => (func, kernels, Some(ptx), None),
                }
            }
        };
        let ctx: &'a Context = ctx;
        Ok(Compiled { engine: self, ctx, reference, func, kernels, ptx, loaded, compile_time: t0.elapsed() })
    }
}

/// A function compiled for a device by [`Engine::compile`].
pub struct Compiled<'a> {
    engine: &'a Engine,
    ctx: &'a Context,
    reference: OpId,
    func: OpId,
    kernels: Vec<String>,
    ptx: Option<String>,
    loaded: Option<morf_runtime::Module>,
    compile_time: Duration,
}

/// Where a function's arguments come from: `.npy` files, in-memory arrays, and
/// generated values for the rest (a builder over [`RunOptions`]).
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    opts: RunOptions,
}

impl Inputs {
    /// No inputs yet.
    pub fn new() -> Inputs {
        Inputs::default()
    }

    /// Binds argument `%name` to an `.npy` file (bf16 arguments read float32 files).
    pub fn file(mut self, name: &str, path: impl Into<PathBuf>) -> Inputs {
        self.opts.inputs.push((name.trim_start_matches('%').to_string(), path.into()));
        self
    }

    /// Binds argument `%name` to `data` of `shape` (row-major), rounded to the argument's
    /// element type (with a warning when a value is not representable).
    pub fn array(mut self, name: &str, shape: Vec<usize>, data: Vec<f64>) -> Inputs {
        self.opts.arrays.push((name.trim_start_matches('%').to_string(), InputArray { shape, data }));
        self
    }

    /// [`Inputs::array`] from bf16 values.
    pub fn array_bf16(self, name: &str, shape: Vec<usize>, data: &[half::bf16]) -> Inputs {
        self.array(name, shape, data.iter().map(|v| v.to_f64()).collect())
    }

    /// [`Inputs::array`] from f16 values.
    pub fn array_f16(self, name: &str, shape: Vec<usize>, data: &[half::f16]) -> Inputs {
        self.array(name, shape, data.iter().map(|v| v.to_f64()).collect())
    }

    /// [`Inputs::array`] from f32 values.
    pub fn array_f32(self, name: &str, shape: Vec<usize>, data: &[f32]) -> Inputs {
        self.array(name, shape, data.iter().map(|v| *v as f64).collect())
    }

    /// Generates every argument not given otherwise, pseudo-randomly (normal(0, 1), or
    /// uniform in [0.5, 2) for `morf.random = "positive"`), sizing the dimension names of
    /// their `morf.dims` attributes by `sizes`.
    pub fn random(mut self, sizes: &[(&str, usize)]) -> Inputs {
        self.opts.random = Some(sizes.iter().map(|(n, s)| (n.to_string(), *s)).collect());
        self
    }

    /// The seed of generated values (0 by default).
    pub fn seed(mut self, seed: u64) -> Inputs {
        self.opts.seed = seed;
        self
    }

    /// Refuses to bind when the estimated memory of an interpreter run is over `limit`.
    pub fn max_memory(mut self, limit: MemoryLimit) -> Inputs {
        self.opts.max_memory = Some(limit);
        self
    }

    /// The options these inputs stand for.
    pub fn options(&self) -> &RunOptions {
        &self.opts
    }
}

impl From<RunOptions> for Inputs {
    fn from(opts: RunOptions) -> Inputs {
        Inputs { opts }
    }
}

/// Arguments bound by [`Compiled::bind`]: values of the function as written.
#[derive(Clone, Debug)]
pub struct Args {
    /// One value per argument, in order.
    pub values: Vec<RtValue>,
    /// Warnings about the inputs (values rounded to their type, ...), without a prefix.
    pub warnings: Vec<String>,
}

/// The results of one run ([`Compiled::run`]).
pub struct Outputs<'a> {
    ctx: &'a Context,
    func: OpId,
    /// One value per result, in order (tensors, buffers or scalars).
    pub values: Vec<RtValue>,
    /// Kernel launches of the run (0 on the interpreter).
    pub launches: usize,
    /// Time of the run (for the GPU, until the results were downloaded).
    pub run_time: Duration,
}

impl Outputs<'_> {
    /// The number of results.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the function returned nothing.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The shape and values of result `i` (a scalar has shape `[]`).
    pub fn array(&self, i: usize) -> Option<(Vec<usize>, Vec<f64>)> {
        self.values.get(i).and_then(shape_and_data)
    }

    /// Writes every result to `dir/result<i>.npy` ([`crate::write_results`]); the
    /// summaries give the result types of the function as written.
    pub fn write(&self, dir: &Path, stats: bool) -> Result<Vec<ResultSummary>, EngineError> {
        write_results(self.ctx, self.func, &self.values, dir, stats)
    }
}

/// A copy of `v` that shares no buffer with it (a run may write its buffer arguments).
fn detached(v: &RtValue) -> RtValue {
    match v {
        RtValue::Buffer { elem, data } => {
            RtValue::Buffer { elem: *elem, data: Rc::new(RefCell::new(data.borrow().clone())) }
        }
        v => v.clone(),
    }
}

impl<'a> Compiled<'a> {
    /// The context of the function.
    pub fn context(&self) -> &'a Context {
        self.ctx
    }

    /// The function as written (the reference of [`Compiled::check`]).
    pub fn reference_function(&self) -> OpId {
        self.reference
    }

    /// The function that runs: the host function of the lowered module, or the function
    /// as written on the interpreter.
    pub fn function(&self) -> OpId {
        self.func
    }

    /// The names of the GPU kernels (empty on the interpreter).
    pub fn kernels(&self) -> &[String] {
        &self.kernels
    }

    /// The PTX emitted ([`Device::Sim`] on a lowered module and [`Device::Gpu`]).
    pub fn ptx(&self) -> Option<&str> {
        self.ptx.as_deref()
    }

    /// Time spent lowering, emitting and loading.
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }

    /// Binds the arguments of the function as written from `inputs`.
    pub fn bind(&self, inputs: &Inputs) -> Result<Args, EngineError> {
        let (values, warnings) = bind_arguments(self.ctx, self.reference, &inputs.opts)?;
        Ok(Args { values, warnings })
    }

    /// The arguments of the host function: tensors become buffers of its parameter types.
    fn host_args(&self, args: &Args) -> Vec<RtValue> {
        let params = self
            .ctx
            .regions(self.func)
            .first()
            .and_then(|r| self.ctx.entry_block(*r))
            .map(|b| self.ctx.block_args(b).to_vec())
            .unwrap_or_default();
        args.values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let buffer_elem = params
                    .get(i)
                    .and_then(|p| morf_loop::buffer_parts(self.ctx, self.ctx.value_type(*p)))
                    .map(|(_, e)| e);
                match (v, buffer_elem) {
                    (RtValue::Tensor { array, .. }, Some(elem)) => {
                        RtValue::Buffer { elem, data: Rc::new(RefCell::new((**array).clone())) }
                    }
                    (v, _) => detached(v),
                }
            })
            .collect()
    }

    /// Runs the compiled function once on `args` (which it leaves as they are) and
    /// returns its results.
    pub fn run(&self, args: &Args) -> Result<Outputs<'a>, EngineError> {
        let ctx = self.ctx;
        let t = Instant::now();
        let (values, launches) = match (self.engine.device, &self.loaded, self.engine.gpu.as_ref()) {
            (Device::Gpu, Some(loaded), Some(gpu)) => {
                run_on_gpu(gpu, loaded, ctx, self.func, &self.kernels, &args.values)?
            }
            (Device::Interp, ..) => {
                let values = args.values.iter().map(detached).collect();
                let r = morf_ir::interp::run_function(ctx, self.func, values)
                    .map_err(|d| EngineError::Diagnostic(ctx.render(&d)))?;
                (r, 0)
            }
            _ => run_host_on_simulator(ctx, self.func, self.host_args(args))
                .map_err(|d| EngineError::Diagnostic(ctx.render(&d)))?,
        };
        // Results are described by the signature as written (`tensor<...>`, not the
        // lowered host function's `!mloop.buffer<...>`).
        Ok(Outputs { ctx, func: self.reference, values, launches, run_time: t.elapsed() })
    }

    /// Runs the function as written on the fp64 reference interpreter.
    pub fn reference(&self, args: &Args) -> Result<Vec<RtValue>, EngineError> {
        let values = args.values.iter().map(detached).collect();
        morf_ir::interp::run_function(self.ctx, self.reference, values)
            .map_err(|d| EngineError::Diagnostic(self.ctx.render(&d)))
    }

    /// Compares every output of a run on `args` with the reference interpreter's
    /// ([`crate::compare_outputs_judged`], each output judged by the narrowest float type
    /// on its way through the function as written).
    pub fn check(&self, args: &Args, outputs: &Outputs<'_>) -> Result<Vec<OutputCheck>, EngineError> {
        let reference = self.reference(args)?;
        let precisions = morf_ir::numerics::result_precisions(self.ctx, self.reference);
        Ok(compare_outputs_judged(outputs.ctx, &outputs.values, &reference, &precisions))
    }
}
