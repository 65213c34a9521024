//! Compiling a module for a device: the named pipelines (with size hints) that lower a
//! tensor- or loop-level module to the GPU level, PTX emission, loading the PTX with
//! `morf-runtime` ([`GpuProgram`], run by [`crate::gpu_exec::GpuExecutor`]), and running a
//! GPU-level host function on the CPU simulator ([`run_host_on_simulator`]).

use std::time::{Duration, Instant};

use morf_ir::interp::RtValue;
use morf_ir::pass::{
    apply_pass_option, apply_size_hints, module_size_hints, parse_pipeline, Instrumentation, PassManager, PassRegistry,
    SizeHints,
};
use morf_ir::{Context, OpId};
use morf_passes::target::ptx::relief::{self, SpillRelief};
use morf_runtime::{Gpu, RuntimeError};

use crate::bind::{load_module, new_context, select_function};
use crate::gpu_exec::{kernel_names, DevElem, DevValue, ExecError, GpuExecutor};
use crate::EngineError;

/// The named pipeline that lowers a tensor-level module to the GPU level.
pub const GPU_PIPELINE: &str = "gpu";

/// Whether `module` holds GPU kernels (`mgpu.func`).
pub fn has_kernels(ctx: &Context, module: OpId) -> bool {
    !kernel_names(ctx, module).is_empty()
}

/// Whether `text` parses to a module with GPU kernels (for picking the default device;
/// a parse error answers false and is reported by the run itself).
pub fn text_has_kernels(name: &str, text: &str) -> bool {
    let mut ctx = new_context(true);
    ctx.add_source(name, text);
    match morf_ir::parse_source(&mut ctx, name, text, 0) {
        Ok(m) => has_kernels(&ctx, m),
        Err(_) => false,
    }
}

/// Every pass and named pipeline morf-run can use to lower a module.
pub fn pass_registry() -> PassRegistry {
    let mut reg = PassRegistry::default();
    morf_passes::register_all(&mut reg);
    reg
}

/// Pipeline `text` with `hints` (`M=576000,N=384`) given to every pass of it that takes
/// size hints, as the pass registry says ([`morf_ir::pass::apply_size_hints`]; an explicit
/// `size-hints` option in `text` wins). Text that does not parse, or hints that do not
/// parse, give `text` back unchanged (running it reports the error). For logs and tests;
/// [`run_named_pipeline`] applies hints without going through text.
pub fn pipeline_with_hints(text: &str, hints: &str) -> String {
    match (parse_pipeline(text), SizeHints::parse(hints)) {
        (Ok(mut p), Ok(h)) => {
            apply_size_hints(&mut p, &pass_registry(), &h);
            p.to_string()
        }
        _ => text.to_string(),
    }
}

/// Pipeline `pipeline` (a registered name or a textual pipeline) as text, with option
/// `key=value` given to every pass of it that declares `key` and does not set it
/// ([`morf_ir::pass::apply_pass_option`]). A name that is not registered (text without
/// parentheses), or text that does not parse, is an error.
pub fn pipeline_with_option(pipeline: &str, key: &str, value: &str) -> Result<String, EngineError> {
    let reg = pass_registry();
    let source = match reg.pipeline(pipeline) {
        Some(p) => p.text,
        None if pipeline.contains('(') => pipeline,
        None => return Err(EngineError::Other(format!("no pipeline named '{pipeline}' is registered"))),
    };
    let mut p = parse_pipeline(source).map_err(|e| EngineError::Other(format!("pipeline '{pipeline}': {e}")))?;
    apply_pass_option(&mut p, &reg, key, value);
    Ok(p.to_string())
}

/// The size hints a compile of `module` uses, by precedence: `explicit` (a flag, an
/// [`crate::EngineOptions::size_hints`]), else the module's `morf.size_hints` attribute
/// ([`morf_ir::pass::module_size_hints`]), else `derived` (the shapes of the actual
/// inputs, [`size_hints_from_args`]). A malformed attribute is a diagnostic at the module.
pub fn resolve_size_hints(
    ctx: &Context,
    module: OpId,
    explicit: Option<&str>,
    derived: Option<String>,
) -> Result<Option<String>, EngineError> {
    if let Some(h) = explicit {
        return Ok(Some(h.to_string()));
    }
    match module_size_hints(ctx, module).map_err(|d| EngineError::Diagnostic(ctx.render(&d)))? {
        Some(h) => Ok(Some(h.to_string())),
        None => Ok(derived),
    }
}

/// Size hints (`M=576000,N=384`) from the `morf.dims` names of `func`'s arguments and the
/// shapes of the values bound to them; `None` when no argument names its dims.
pub fn size_hints_from_args(ctx: &Context, func: OpId, args: &[RtValue]) -> Option<String> {
    let shapes: Vec<Vec<usize>> = args
        .iter()
        .map(|v| match v {
            RtValue::Tensor { array, .. } => array.shape.clone(),
            RtValue::Buffer { data, .. } => data.borrow().shape.clone(),
            _ => Vec::new(),
        })
        .collect();
    size_hints_from_shapes(ctx, func, &shapes)
}

/// [`size_hints_from_args`] from the argument shapes alone (as
/// [`crate::plan_arguments`] gives them, before any data exists).
pub fn size_hints_from_shapes(ctx: &Context, func: OpId, shapes: &[Vec<usize>]) -> Option<String> {
    let arg_attrs = ctx.attr(func, "arg_attrs").and_then(|a| ctx.attr_array(a))?;
    let mut hints: Vec<(String, usize)> = Vec::new();
    for (dict, shape) in arg_attrs.iter().zip(shapes) {
        let Some(names) = crate::bind::dict_get(ctx, *dict, "morf.dims").and_then(|v| ctx.attr_array(v)) else {
            continue;
        };
        for (n, &size) in names.iter().zip(shape) {
            if let Some(name) = ctx.attr_str(*n) {
                // Hints travel in pass-option text (`size-hints=M=4,N=8`), so only identifier
                // names can be hints; another name (`"N x"`, found by fuzzing) would be parsed
                // as more options. Hints only specialize, so such a dim just gets none.
                let ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !ident {
                    tracing::warn!("dim name '{name}' is not an identifier: no size hint for it");
                    continue;
                }
                if !hints.iter().any(|(h, _)| h == name) {
                    hints.push((name.to_string(), size));
                }
            }
        }
    }
    if hints.is_empty() {
        None
    } else {
        Some(hints.iter().map(|(n, s)| format!("{n}={s}")).collect::<Vec<_>>().join(","))
    }
}

/// Runs the named pipeline `name` of `reg` (or, when no pipeline has that name and it holds a
/// `(`, the textual pipeline `name`, as `morf-opt --pass-pipeline` takes it) on `module`,
/// verifying after each pass. Every
/// pass of it that takes size hints gets `hints` when given, else those of the module's
/// `morf.size_hints` attribute, if any ([`resolve_size_hints`]; a `size-hints` option
/// written in the pipeline text wins over both).
pub fn run_named_pipeline(
    ctx: &mut Context,
    module: OpId,
    reg: &PassRegistry,
    name: &str,
    hints: Option<&str>,
) -> Result<(), EngineError> {
    // A registered name, or a textual pipeline (`builtin.module(...)`, as `--pass-pipeline`).
    let source = match reg.pipeline(name) {
        Some(p) => p.text,
        None if name.contains('(') => name,
        None => {
            let known: Vec<&str> = reg.pipelines().map(|p| p.name).collect();
            return Err(EngineError::Other(format!(
                "no pipeline named '{name}' is registered (known: {}; or give a textual pipeline such as \
                 'builtin.module(...)'); the input is not at GPU level (it has no mgpu.func), so it must be lowered first",
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            )));
        }
    };
    let mut text = parse_pipeline(source).map_err(|e| EngineError::Other(format!("pipeline '{name}': {e}")))?;
    if let Some(h) = resolve_size_hints(ctx, module, hints, None)? {
        let h = SizeHints::parse(&h).map_err(|e| EngineError::Other(format!("size hints '{h}': {e}")))?;
        apply_size_hints(&mut text, reg, &h);
    }
    tracing::info!("pipeline '{name}': {text}");
    let mut pm = PassManager::new(Instrumentation { verify_each: true, ..Default::default() });
    pm.add_pipeline(reg, &text).map_err(|e| EngineError::Other(format!("pipeline '{name}': {e}")))?;
    pm.run(ctx, module).map_err(|d| EngineError::Diagnostic(ctx.render(&d)))
}

/// PTX text of every kernel of `module`.
pub fn emit_ptx(ctx: &Context, module: OpId) -> Result<String, EngineError> {
    morf_passes::target::ptx::emit_module(ctx, module, &morf_passes::target::ptx::PtxOptions::default())
        .map_err(|d| EngineError::Diagnostic(ctx.render(&d)))
}

/// Turns a runtime error into a run error; a missing driver reads "no GPU: ...".
pub fn runtime_err(e: RuntimeError) -> EngineError {
    match e {
        RuntimeError::NoCuda(m) => EngineError::NoGpu(m),
        e => EngineError::Other(format!("GPU: {e}")),
    }
}

pub(crate) fn exec_err(ctx: &Context, e: ExecError) -> EngineError {
    match e {
        ExecError::Runtime(e) => runtime_err(e),
        ExecError::Diagnostic(d) => EngineError::Diagnostic(ctx.render(&d)),
    }
}

/// A module lowered to GPU level and loaded on a device, with its host function.
pub struct GpuProgram {
    /// The context holding the lowered module.
    pub ctx: Context,
    /// The lowered module.
    pub module: OpId,
    /// The host function to call.
    pub func: OpId,
    /// The PTX loaded.
    pub ptx: String,
    /// The kernels (`.entry` names).
    pub kernels: Vec<String>,
    /// The loaded module.
    pub loaded: morf_runtime::Module,
    /// Time spent lowering and emitting PTX.
    pub compile_time: Duration,
    /// The kernels given spill relief on loading ([`load_relieved`]).
    pub reliefs: Vec<SpillRelief>,
}

/// What one kernel of a loaded program takes ([`GpuProgram::kernel_resources`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct KernelResource {
    /// The kernel's `.entry` name.
    pub kernel: String,
    /// Registers a thread.
    pub registers: u64,
    /// Local memory a thread, in bytes (spills and the stack frame).
    pub local_bytes: u64,
    /// Bytes the driver's JIT compile stored to local memory for spills (`None`: its log does
    /// not say).
    pub spill_store_bytes: Option<u64>,
    /// Spill relief ([`load_relieved`]): the CTAs per SM the kernel was bounded to after the
    /// JIT spilled it (without a bound, or under the bound its lowering planned), and the
    /// bytes it spilled then (stores plus loads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relief: Option<(u64, u64)>,
}

impl std::fmt::Display for KernelResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "@{} {} registers", self.kernel, self.registers)?;
        match self.spill_store_bytes {
            Some(b) if b > 0 => write!(f, ", {b} bytes spilled")?,
            Some(_) => {}
            None if self.local_bytes > 0 => write!(f, ", {} bytes of local memory", self.local_bytes)?,
            None => {}
        }
        if let Some((ctas, before)) = self.relief {
            write!(f, " (spill relief: .minnctapersm {ctas}; {before} bytes spilled before)")?;
        }
        Ok(())
    }
}

/// A module lowered to GPU level and emitted as PTX, not yet loaded on a device
/// ([`lower_for_gpu`]; [`LoweredProgram::load`] loads it).
pub struct LoweredProgram {
    /// The context holding the lowered module.
    pub ctx: Context,
    /// The lowered module.
    pub module: OpId,
    /// The host function to call.
    pub func: OpId,
    /// The PTX of its kernels.
    pub ptx: String,
    /// The kernels (`.entry` names).
    pub kernels: Vec<String>,
    /// Time spent lowering and emitting PTX.
    pub compile_time: Duration,
}

/// Parses `text`, lowers it with `pipeline` unless it already has kernels, and emits PTX.
/// `entry` picks the host function (by the original name).
pub fn lower_for_gpu(
    name: &str,
    text: &str,
    entry: Option<&str>,
    allow_unregistered_dialect: bool,
    pipeline: &str,
    hints: Option<&str>,
) -> Result<LoweredProgram, EngineError> {
    let t0 = Instant::now();
    let mut ctx = new_context(allow_unregistered_dialect);
    let module = load_module(&mut ctx, name, text)?;
    let _ = ctx.take_emitted();
    let fname = {
        let f = select_function(&ctx, module, entry, name)?;
        morf_ir::builtin::symbol_name(&ctx, f).unwrap_or("?").to_string()
    };
    if !has_kernels(&ctx, module) {
        run_named_pipeline(&mut ctx, module, &pass_registry(), pipeline, hints)?;
    }
    let func = morf_ir::builtin::lookup_function(&ctx, module, &fname)
        .ok_or_else(|| EngineError::Other(format!("the '{pipeline}' pipeline left no host function @{fname}")))?;
    // A host function may launch no kernel at all (it returns an argument, or only
    // reshapes): it still runs, on a PTX module that holds no entry.
    let kernels = kernel_names(&ctx, module);
    let ptx = emit_ptx(&ctx, module)?;
    Ok(LoweredProgram { ctx, module, func, ptx, kernels, compile_time: t0.elapsed() })
}

/// The `.entry` kernels of PTX `text` with their parameter counts, in order.
pub fn ptx_entries(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(".entry ") {
        rest = &rest[i + ".entry ".len()..];
        let name: String = rest.chars().take_while(|c| !c.is_whitespace() && *c != '(').collect();
        let params =
            rest.find('(').zip(rest.find(')')).map_or(
                0,
                |(a, b)| {
                    if a < b {
                        rest[a..b].matches(".param").count()
                    } else {
                        0
                    }
                },
            );
        out.push((name, params));
    }
    out.sort();
    out
}

impl LoweredProgram {
    /// The program with `ptx` (another backend's PTX of the same lowering, e.g. MLIR's
    /// `gpu-module-to-binary`) in place of morf's own: its kernels and their parameter
    /// counts must be those of morf's PTX, or the launches would not match them.
    pub fn with_ptx(mut self, ptx: String, what: &str) -> Result<LoweredProgram, EngineError> {
        let (ours, theirs) = (ptx_entries(&self.ptx), ptx_entries(&ptx));
        if ours != theirs {
            let show = |v: &[(String, usize)]| {
                v.iter().map(|(n, p)| format!("{n}({p} params)")).collect::<Vec<_>>().join(", ")
            };
            return Err(EngineError::Other(format!(
                "{what} does not match this lowering: its kernels are [{}], the lowering's are [{}] \
                 (compile it from the same program, pipeline, size hints and tuning)",
                show(&theirs),
                show(&ours)
            )));
        }
        use morf_passes::target::ptx::lowering_stamp;
        match (lowering_stamp(&self.ptx), lowering_stamp(&ptx)) {
            (Some(ours), Some(theirs)) if ours != theirs => {
                return Err(EngineError::Other(format!(
                    "{what} was emitted from another lowering (its stamp is {theirs}, this one's is {ours}): \
                     the same kernels with another schedule (tuning cache, device, size hints or options) \
                     would launch with the wrong geometry; emit it with `morf-opt --emit=ptx` and the \
                     same program, pipeline, size hints, tuning cache and device"
                )));
            }
            (Some(_), None) => tracing::info!(
                "{what} carries no morf lowering stamp (another backend's PTX): only its kernels and \
                 their parameter counts are checked against this lowering"
            ),
            _ => {}
        }
        self.ptx = ptx;
        Ok(self)
    }

    /// Loads the PTX on `gpu` (the driver's JIT) and looks up every kernel. morf's own PTX
    /// gets spill relief ([`load_relieved`]); PTX given by [`LoweredProgram::with_ptx`] is
    /// loaded as it is. A kernel the JIT still spills is warned about ([`spill_warnings`]).
    pub fn load(self, gpu: &Gpu) -> Result<GpuProgram, EngineError> {
        let LoweredProgram { mut ctx, module, func, ptx, kernels, compile_time } = self;
        let (loaded, ptx, reliefs) = if emit_ptx(&ctx, module).is_ok_and(|own| own == ptx) {
            load_relieved(gpu, &mut ctx, module, ptx, &kernels)?
        } else {
            (load_as_is(gpu, &ptx, &kernels)?, ptx, Vec::new())
        };
        Ok(GpuProgram { ctx, module, func, ptx, kernels, loaded, compile_time, reliefs })
    }
}

/// Loads `ptx` on `gpu` as it is (PTX not morf's own, or a module that came with its
/// kernels): no spill relief; each kernel the JIT spilled is warned about
/// ([`spill_warnings`]).
pub fn load_as_is(gpu: &Gpu, ptx: &str, kernels: &[String]) -> Result<morf_runtime::Module, EngineError> {
    let names: Vec<&str> = kernels.iter().map(String::as_str).collect();
    let loaded = gpu.load_ptx(ptx, &names).map_err(runtime_err)?;
    for w in spill_warnings(loaded.jit_log()) {
        tracing::warn!("{w}");
    }
    Ok(loaded)
}

/// Loads `ptx`, morf's PTX of `module`, on `gpu`. A kernel that the driver's JIT spilled
/// without a CTAs-per-SM bound gets the bound that keeps the occupancy the JIT chose, one
/// spilled under the bound its lowering planned (`min_ctas_planned`) one CTA fewer
/// (`morf_passes::target::ptx::relief::relieve`, one CTA lower if it still spills there): the
/// module is emitted and loaded again, and kept if it spills less (then `module` keeps the
/// bounds, and the PTX returned is the new one, with the reliefs kept). Each relief kept is
/// logged (`info`), each spill left warned about ([`spill_warnings`]).
pub fn load_relieved(
    gpu: &Gpu,
    ctx: &mut Context,
    module: OpId,
    ptx: String,
    kernels: &[String],
) -> Result<(morf_runtime::Module, String, Vec<SpillRelief>), EngineError> {
    let names: Vec<&str> = kernels.iter().map(String::as_str).collect();
    let first = gpu.load_ptx(&ptx, &names).map_err(runtime_err)?;
    let device = morf_passes::fusion::device::Device::h200();
    let relieved = relief::relieve(ctx, module, &device, &jit_stats(&first), |c| {
        let p = emit_ptx(c, module)?;
        let m = gpu.load_ptx(&p, &names).map_err(runtime_err)?;
        Ok::<_, EngineError>((jit_stats(&m), (m, p)))
    })?;
    let (kept, loaded, ptx) = match relieved {
        Some((kept, (m, p))) => (kept, m, p),
        None => (Vec::new(), first, ptx),
    };
    for r in &kept {
        tracing::info!("{}", r.describe());
    }
    for w in spill_warnings(loaded.jit_log()) {
        tracing::warn!("{w}");
    }
    Ok((loaded, ptx, kept))
}

/// The registers and spills of each kernel of a loaded module, for spill relief: the spill
/// bytes of the JIT's verbose log where it names the kernel, else the kernel's local memory a
/// thread (the driver's attribute). The log is silent when the driver's JIT cache
/// (`~/.nv/ComputeCache`) answers for PTX it compiled before, and morf's kernels declare no
/// local arrays, so their local memory is their spills (a 12-byte spill is a 16-byte frame).
fn jit_stats(m: &morf_runtime::Module) -> Vec<relief::KernelStats> {
    stats_of(m.jit_log(), m.kernel_resources())
}

/// [`jit_stats`] of a JIT log and the driver's attributes.
fn stats_of(log: &str, resources: Vec<morf_runtime::KernelResources>) -> Vec<relief::KernelStats> {
    let logged = relief::stats_from_log(log);
    resources
        .into_iter()
        .map(|k| {
            let spilled = logged.iter().find(|s| s.kernel == k.name).map_or(k.local_bytes, |s| s.spilled);
            relief::KernelStats { kernel: k.name, registers: k.registers, spilled }
        })
        .collect()
}

/// One line per kernel that the driver's JIT compile (its info log, verbose: ptxas' lines)
/// spilled to local memory: a kernel morf's schedule planned without spills (the examples
/// assemble without any under the CUDA 13 ptxas, `passes/tests/ptxas.rs`) but this driver's
/// ptxas did not fit in its registers, so it runs slower than planned.
pub fn spill_warnings(jit_log: &str) -> Vec<String> {
    morf_passes::target::ptx::ptxas::spills(jit_log)
        .into_iter()
        .filter(|(_, stores, loads)| *stores > 0 || *loads > 0)
        .map(|(k, stores, loads)| {
            format!(
                "kernel '{k}' spills in the driver's JIT compile ({stores} bytes stored to local memory, {loads} loaded): it runs slower than its schedule planned"
            )
        })
        .collect()
}

/// Parses `text`, lowers it with `pipeline` unless it already has kernels, emits PTX and
/// loads it on `gpu` ([`lower_for_gpu`], then [`LoweredProgram::load`]). `entry` picks the
/// host function (by the original name).
pub fn compile_for_gpu(
    gpu: &Gpu,
    name: &str,
    text: &str,
    entry: Option<&str>,
    allow_unregistered_dialect: bool,
    pipeline: &str,
    hints: Option<&str>,
) -> Result<GpuProgram, EngineError> {
    lower_for_gpu(name, text, entry, allow_unregistered_dialect, pipeline, hints)?.load(gpu)
}

impl GpuProgram {
    /// Bytes the driver's JIT compile stored to local memory over all kernels (register
    /// spills, from its verbose log; for a kernel the log does not name, its local memory a
    /// thread: the log is silent when the driver's JIT cache answers, and morf's kernels
    /// declare no local arrays). 0 when none spilled.
    pub fn jit_spill_bytes(&self) -> u64 {
        self.kernel_resources().iter().map(|k| k.spill_store_bytes.unwrap_or(k.local_bytes)).sum()
    }

    /// What each kernel takes as the driver compiled it: registers and local memory a thread
    /// (the driver's attributes) and the bytes its JIT compile spilled (its log; `None` when
    /// the log does not name the kernel).
    pub fn kernel_resources(&self) -> Vec<KernelResource> {
        let spills = morf_passes::target::ptx::ptxas::spills(self.loaded.jit_log());
        self.loaded
            .kernel_resources()
            .into_iter()
            .map(|k| KernelResource {
                spill_store_bytes: spills.iter().find(|(n, _, _)| *n == k.name).map(|(_, stores, _)| *stores),
                relief: self.reliefs.iter().find(|r| r.kernel == k.name).map(|r| (r.ctas_per_sm, r.spilled)),
                kernel: k.name,
                registers: k.registers,
                local_bytes: k.local_bytes,
            })
            .collect()
    }

    /// An executor of the host function.
    pub fn executor<'a>(&'a self, gpu: &'a Gpu) -> GpuExecutor<'a> {
        GpuExecutor::new(gpu, &self.loaded, &self.ctx, self.func)
    }

    /// Uploads `args` (bound in another context) as arguments of the host function.
    pub fn upload_args(&self, exec: &mut GpuExecutor<'_>, args: &[RtValue]) -> Result<Vec<DevValue>, EngineError> {
        upload_args(&self.ctx, self.func, exec, args)
    }

    /// Runs the host function once, waits for it, and downloads its results
    /// ([`run_on_gpu`]).
    pub fn run(&self, gpu: &Gpu, args: &[RtValue]) -> Result<Vec<RtValue>, EngineError> {
        run_on_gpu(gpu, &self.loaded, &self.ctx, self.func, &self.kernels, args).map(|(r, _)| r)
    }

    /// The device bytes a call on `args` needs, estimated from the host function.
    pub fn device_bytes(&self, args: &[RtValue]) -> u64 {
        device_bytes(&self.ctx, self.func, args)
    }

    /// An error when the call on `args` needs more device memory than is free.
    pub fn check_device_memory(&self, gpu: &Gpu, args: &[RtValue]) -> Result<(), EngineError> {
        check_device_memory(gpu, &self.ctx, self.func, args)
    }
}

/// Uploads `args` (bound in any context) as arguments of host function `func` of `ctx`.
pub fn upload_args(
    ctx: &Context,
    func: OpId,
    exec: &mut GpuExecutor<'_>,
    args: &[RtValue],
) -> Result<Vec<DevValue>, EngineError> {
    let block = ctx
        .regions(func)
        .first()
        .and_then(|r| ctx.entry_block(*r))
        .ok_or_else(|| EngineError::Other("host function has no body".into()))?;
    let params = ctx.block_args(block).to_vec();
    if params.len() != args.len() {
        return Err(EngineError::Other(format!(
            "the host function takes {} arguments but {} were bound",
            params.len(),
            args.len()
        )));
    }
    let mut out = Vec::with_capacity(args.len());
    for (p, a) in params.iter().zip(args) {
        let ty = ctx.value_type(*p);
        let elem = morf_loop::buffer_parts(ctx, ty).map(|(_, e)| e).unwrap_or(ty);
        out.push(exec.upload(a, elem).map_err(|e| exec_err(ctx, e))?);
    }
    Ok(out)
}

/// Runs host function `func` of `ctx` (its kernels loaded as `loaded`, named `kernels`)
/// once on `args`, waits for it, and downloads its results; also returns the number of
/// launches.
///
/// Before anything is allocated on the device, the buffers the call needs
/// ([`crate::memory::device_bytes`]) are checked against the device's free memory
/// ([`Gpu::mem_info`]); a kernel that fails asynchronously is reported with the
/// kernels of the call.
pub fn run_on_gpu(
    gpu: &Gpu,
    loaded: &morf_runtime::Module,
    ctx: &Context,
    func: OpId,
    kernels: &[String],
    args: &[RtValue],
) -> Result<(Vec<RtValue>, usize), EngineError> {
    check_device_memory(gpu, ctx, func, args)?;
    let mut exec = GpuExecutor::new(gpu, loaded, ctx, func);
    let dev_args = upload_args(ctx, func, &mut exec, args)?;
    let results = exec.call(&dev_args).map_err(|e| exec_err(ctx, e))?;
    let after = |e: RuntimeError| {
        EngineError::Other(format!("GPU: {e} (after launching {}: {})", plural(exec.launches), kernels.join(", ")))
    };
    gpu.synchronize().map_err(after)?;
    let out = results.iter().map(|r| exec.download(r).map_err(|e| exec_err(ctx, e))).collect::<Result<_, _>>()?;
    Ok((out, exec.launches))
}

/// The device bytes a call of host function `func` on `args` needs.
pub fn device_bytes(ctx: &Context, func: OpId, args: &[RtValue]) -> u64 {
    let shapes: Vec<Vec<usize>> = args.iter().map(rt_shape).collect();
    crate::memory::device_bytes(ctx, func, &shapes, &|t| DevElem::of(ctx, t).map(|e| e.size() as u64).unwrap_or(8))
}

/// An error when the call of `func` on `args` needs more device memory than is free.
pub fn check_device_memory(gpu: &Gpu, ctx: &Context, func: OpId, args: &[RtValue]) -> Result<(), EngineError> {
    let need = device_bytes(ctx, func, args);
    let (free, total) = gpu.mem_info().map_err(runtime_err)?;
    check_device_fits(need, free as u64, total as u64)
}

/// The error of a run that needs `need` bytes of device memory when `free` of `total` are free.
pub fn check_device_fits(need: u64, free: u64, total: u64) -> Result<(), EngineError> {
    if need <= free {
        return Ok(());
    }
    Err(EngineError::Other(format!(
        "GPU out of memory: this run needs about {} of device memory, but only {} of {} are free (CUDA_ERROR_OUT_OF_MEMORY avoided); use smaller sizes",
        crate::memory::format_bytes(need),
        crate::memory::format_bytes(free),
        crate::memory::format_bytes(total)
    )))
}

fn plural(n: usize) -> String {
    if n == 1 {
        "1 kernel".into()
    } else {
        format!("{n} kernels")
    }
}

fn rt_shape(v: &RtValue) -> Vec<usize> {
    match v {
        RtValue::Tensor { array, .. } => array.shape.clone(),
        RtValue::Buffer { data, .. } => data.borrow().shape.clone(),
        _ => Vec::new(),
    }
}

/// Runs host function `func` of a GPU-level module on the interpreter (each
/// `mgpu.launch` on the CPU GPU simulator) and counts the launches it ran.
pub fn run_host_on_simulator(
    ctx: &Context,
    func: OpId,
    args: Vec<RtValue>,
) -> Result<(Vec<RtValue>, usize), morf_ir::Diagnostic> {
    let Some(block) = ctx.regions(func).first().and_then(|r| ctx.entry_block(*r)) else {
        return Err(morf_ir::builtin::op_error(ctx, func, "cannot run a function declaration (it has no body)"));
    };
    let mut m = morf_ir::interp::Machine::new();
    for (p, a) in ctx.block_args(block).iter().zip(args) {
        m.set(*p, a);
    }
    let mut launches = 0usize;
    let dead = crate::memory::dead_after(ctx, block);
    for (i, op) in ctx.block_ops(block).enumerate() {
        if ctx.op_name(op) == morf_ir::builtin::ReturnOp::NAME {
            return ctx
                .operands(op)
                .iter()
                .map(|v| m.get(ctx, *v).cloned())
                .collect::<Result<Vec<_>, _>>()
                .map(|r| (r, launches));
        }
        m.run_op(ctx, op)?;
        if ctx.op_name(op) == morf_gpu::ops::LaunchOp::NAME {
            launches += 1;
        }
        // Drop what no later op needs, as the interpreter does (the machine has no
        // removal, so the value is replaced by a scalar).
        for v in dead.get(i).into_iter().flatten() {
            m.set(*v, RtValue::Int(0));
        }
    }
    Ok((Vec::new(), launches))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_estimate_of_a_compiled_example_is_tight() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rmsnorm_bwd.mlir");
        let text = std::fs::read_to_string(path).unwrap();
        let mut ctx = new_context(false);
        let module = load_module(&mut ctx, path, &text).unwrap();
        let (m, n) = (1_000_003usize, 384usize);
        run_named_pipeline(&mut ctx, module, &pass_registry(), GPU_PIPELINE, Some("M=1000003,N=384")).unwrap();
        let func = morf_ir::builtin::lookup_function(&ctx, module, "rmsnorm_bwd").unwrap();
        let shapes = [vec![m, n], vec![n], vec![m, n], vec![m]];
        let bytes = crate::memory::device_bytes(&ctx, func, &shapes, &|t| {
            DevElem::of(&ctx, t).map(|e| e.size() as u64).unwrap_or(8)
        });
        // x, dy and dx in bf16 (6 bytes per element of [M, N]); rstd, w, dw and the f32
        // column partials are small beside them.
        let floor = (6 * m * n) as u64;
        assert!(bytes >= floor && bytes < floor + floor / 4, "{bytes} vs {floor}");
    }

    #[test]
    fn a_textual_pipeline_runs_where_a_name_is_expected() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rmsnorm_bwd.mlir");
        let text = std::fs::read_to_string(path).unwrap();
        let split_of = |pipeline: &str| {
            let mut ctx = new_context(false);
            let module = load_module(&mut ctx, path, &text).unwrap();
            run_named_pipeline(&mut ctx, module, &pass_registry(), pipeline, Some("M=65536,N=1024")).unwrap();
            morf_ir::print_op(&ctx, module, &morf_ir::PrintOptions::default()).contains("split = 64")
        };
        // A textual pipeline takes the hints like a named one; an explicit `splits` is the only
        // size tried (the default set picks another split at this shape).
        assert!(split_of("builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{splits=64})"));
        assert!(!split_of("builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions)"));
        // An unknown name without parentheses is an error naming the registered pipelines.
        let mut ctx = new_context(false);
        let module = load_module(&mut ctx, path, &text).unwrap();
        let e = run_named_pipeline(&mut ctx, module, &pass_registry(), "gpu-fast", None).unwrap_err().to_string();
        assert!(e.contains("no pipeline named 'gpu-fast'") && e.contains("gpu-unfused"), "{e}");
        // A malformed textual pipeline is an error, not a panic.
        let e = run_named_pipeline(&mut ctx, module, &pass_registry(), "builtin.module(no-such-pass)", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no-such-pass"), "{e}");
    }

    #[test]
    fn device_memory_message() {
        assert!(check_device_fits(10, 10, 100).is_ok());
        let m = check_device_fits(3 << 30, 1 << 30, 80 << 30).unwrap_err().to_string();
        assert_eq!(
            m,
            "GPU out of memory: this run needs about 3.0 GiB of device memory, but only 1.0 GiB of 80.0 GiB are free (CUDA_ERROR_OUT_OF_MEMORY avoided); use smaller sizes"
        );
    }

    #[test]
    fn no_gpu_message() {
        let e = runtime_err(RuntimeError::NoCuda(morf_runtime::NO_CUDA_MESSAGE.into()));
        assert_eq!(e.to_string(), "no GPU: CUDA driver library not found; GPU work skipped");
    }

    #[test]
    fn kernel_resources_print_registers_and_spills() {
        let k = |spill, local| KernelResource {
            kernel: "k0".into(),
            registers: 48,
            local_bytes: local,
            spill_store_bytes: spill,
            relief: None,
        };
        assert_eq!(k(Some(12), 16).to_string(), "@k0 48 registers, 12 bytes spilled");
        assert_eq!(k(Some(0), 0).to_string(), "@k0 48 registers");
        // Without the JIT log's word, local memory is said as such (a stack frame or spills).
        assert_eq!(k(None, 16).to_string(), "@k0 48 registers, 16 bytes of local memory");
        assert_eq!(k(None, 0).to_string(), "@k0 48 registers");
        let relieved = KernelResource { relief: Some((5, 28)), ..k(Some(0), 0) };
        assert_eq!(relieved.to_string(), "@k0 48 registers (spill relief: .minnctapersm 5; 28 bytes spilled before)");
    }

    #[test]
    fn relief_stats_take_the_log_else_the_local_memory() {
        let res = |name: &str, local| morf_runtime::KernelResources {
            name: name.into(),
            registers: 48,
            local_bytes: local,
            static_shared_bytes: 0,
        };
        let log = "ptxas info    : Compiling entry function 'k0' for 'sm_90'\nptxas info    : Function properties for k0\n    16 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\nptxas info    : Used 48 registers\n";
        // The log names k0; k1 is not in it (the JIT cache answered): its local memory counts.
        let s = stats_of(log, vec![res("k0", 16), res("k1", 16), res("k2", 0)]);
        let spilled: Vec<(String, u64)> = s.into_iter().map(|k| (k.kernel, k.spilled)).collect();
        assert_eq!(spilled, [("k0".into(), 28), ("k1".into(), 16), ("k2".into(), 0)]);
    }

    #[test]
    fn spills_in_the_jit_log_are_warned_about() {
        // The lines ptxas writes (the driver's verbose JIT log has the same).
        let log = "ptxas info    : Compiling entry function 'k0' for 'sm_90'\n\
                   ptxas info    : Function properties for k0\n\
                   \x20   8 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
                   ptxas info    : Used 48 registers\n\
                   ptxas info    : Compiling entry function 'k1' for 'sm_90'\n\
                   ptxas info    : Function properties for k1\n\
                   \x20   0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
        let w = spill_warnings(log);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("kernel 'k0' spills in the driver's JIT compile (8 bytes stored"), "{}", w[0]);
        assert!(w[0].contains("4 loaded"), "{}", w[0]);
        assert!(spill_warnings("").is_empty());
    }
}

#[cfg(test)]
mod hint_tests {
    use super::{new_context, pipeline_with_hints, pipeline_with_option, resolve_size_hints};
    use crate::bind::load_module;
    use crate::EngineError;

    #[test]
    fn explicit_hints_beat_the_attribute_which_beats_the_shapes() {
        let text = "module attributes {morf.size_hints = \"M=5,N=6\"} {\n}\n";
        let mut ctx = new_context(false);
        let m = load_module(&mut ctx, "a.mlir", text).unwrap();
        let shapes = Some("M=7,N=8".to_string());
        assert_eq!(resolve_size_hints(&ctx, m, Some("M=1"), shapes.clone()).unwrap().as_deref(), Some("M=1"));
        assert_eq!(resolve_size_hints(&ctx, m, None, shapes.clone()).unwrap().as_deref(), Some("M=5,N=6"));
        let mut plain = new_context(false);
        let p = load_module(&mut plain, "b.mlir", "module {\n}\n").unwrap();
        assert_eq!(resolve_size_hints(&plain, p, None, shapes.clone()).unwrap().as_deref(), Some("M=7,N=8"));
        let mut bad = new_context(false);
        let b = load_module(&mut bad, "c.mlir", "module attributes {morf.size_hints = \"M\"} {\n}\n").unwrap();
        match resolve_size_hints(&bad, b, None, shapes) {
            Err(EngineError::Diagnostic(d)) => assert!(d.starts_with("c.mlir:1:1: error:"), "{d}"),
            other => panic!("{:?}", other.map_err(|e| e.to_string())),
        }
    }

    #[test]
    fn hints_reach_the_specialized_passes_only() {
        // Which passes take hints comes from the registry (their `size-hints` option).
        let p =
            "builtin.module(lower-tensor-to-loop,fuse-mixed-reductions,canonicalize,lower-loop-to-gpu{threads=128})";
        assert_eq!(
            pipeline_with_hints(p, "M=7,N=100"),
            "builtin.module(lower-tensor-to-loop,fuse-mixed-reductions{size-hints=M=7,N=100},canonicalize,\
lower-loop-to-gpu{size-hints=M=7,N=100 threads=128})"
        );
    }

    #[test]
    fn a_device_override_reaches_the_passes_that_take_one() {
        // `morf-bench --reserve-sms`: the `gpu` pipeline's fusion and lowering plan for the
        // SMs left; an explicit `device` option wins.
        let p = pipeline_with_option("gpu", "device", "sms=92").unwrap();
        assert!(p.contains("fuse-mixed-reductions{device=sms=92 partials=resident}"), "{p}");
        assert!(p.contains("lower-loop-to-gpu{device=sms=92}"), "{p}");
        assert!(!p.contains("canonicalize{"), "{p}");
        let p = pipeline_with_option("builtin.module(lower-loop-to-gpu{device=sms=8})", "device", "sms=92").unwrap();
        assert_eq!(p, "builtin.module(lower-loop-to-gpu{device=sms=8})");
        assert!(pipeline_with_option("no-such-pipeline", "device", "sms=92").is_err());
    }
}
