//! `morf-run --device gpu` and `--check`: compile a module for the GPU (the `gpu` pipeline
//! when it is not at GPU level yet, then PTX emission), load it with `morf-runtime`, run
//! the host function with [`crate::gpu_exec::GpuExecutor`], and compare every output with
//! the fp64 reference interpreter run of the original function.
//!
//! The reference and the GPU run use two contexts parsed from the same text: lowering
//! rewrites its module in place, and the reference must run the function as written.
//! Arguments are bound once, in the reference context, and uploaded by value.

use std::time::{Duration, Instant};

use morf_ir::interp::RtValue;
use morf_ir::pass::{parse_pipeline, Instrumentation, PassManager, PassRegistry};
use morf_ir::{Context, FloatKind, OpId};
use morf_runtime::{Gpu, RuntimeError};

use crate::gpu_exec::{kernel_names, DevElem, DevValue, ExecError, GpuExecutor};
use crate::{
    bind_arguments, load_module, new_context, select_function, write_results, RunError, RunOptions, RunReport,
};

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

/// The passes that specialize their decisions for size hints (`size-hints=M=576000,N=384`):
/// the fusion search (its cost model) and the GPU mapping (its schedules). Both keep the
/// program correct for other sizes: the kernels check the sizes at run time.
pub const HINTED_PASSES: [&str; 2] = ["fuse-mixed-reductions", "lower-loop-to-gpu"];

/// Adds `size-hints=HINTS` to every pass of pipeline `text` named in [`HINTED_PASSES`].
pub fn pipeline_with_hints(text: &str, hints: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    'outer: while !rest.is_empty() {
        for pass in HINTED_PASSES {
            if let Some(after) = rest.strip_prefix(pass) {
                let boundary = out.chars().last().is_none_or(|c| matches!(c, '(' | ',' | ' '));
                let next = after.chars().next();
                if boundary && next.is_none_or(|c| matches!(c, '{' | ',' | ')' | ' ')) {
                    out.push_str(pass);
                    if let Some(opts) = after.strip_prefix('{') {
                        out.push_str(&format!("{{size-hints={hints} "));
                        rest = opts;
                    } else {
                        out.push_str(&format!("{{size-hints={hints}}}"));
                        rest = after;
                    }
                    continue 'outer;
                }
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
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
        let morf_ir::AttrData::Dict(entries) = ctx.attr_data(*dict) else { continue };
        let Some(names) =
            entries.iter().find(|(k, _)| ctx.str(*k) == "morf.dims").and_then(|(_, v)| ctx.attr_array(*v))
        else {
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

/// Runs the named pipeline `name` of `reg` on `module`, verifying after each pass; with
/// `hints`, the size-specialized passes get them (see [`pipeline_with_hints`]).
pub fn run_named_pipeline(
    ctx: &mut Context,
    module: OpId,
    reg: &PassRegistry,
    name: &str,
    hints: Option<&str>,
) -> Result<(), RunError> {
    let p = reg.pipeline(name).ok_or_else(|| {
        let known: Vec<&str> = reg.pipelines().map(|p| p.name).collect();
        RunError::Other(format!(
            "no pipeline named '{name}' is registered (known: {}); the input is not at GPU level (it has no mgpu.func), so it must be lowered first",
            if known.is_empty() { "none".to_string() } else { known.join(", ") }
        ))
    })?;
    let full = match hints {
        Some(h) => pipeline_with_hints(p.text, h),
        None => p.text.to_string(),
    };
    tracing::info!("pipeline '{name}': {full}");
    let text = parse_pipeline(&full).map_err(|e| RunError::Other(format!("pipeline '{name}': {e}")))?;
    let mut pm = PassManager::new(Instrumentation { verify_each: true, ..Default::default() });
    pm.add_pipeline(reg, &text).map_err(|e| RunError::Other(format!("pipeline '{name}': {e}")))?;
    pm.run(ctx, module).map_err(|d| RunError::Diagnostic(ctx.render(&d)))
}

/// PTX text of every kernel of `module`.
pub fn emit_ptx(ctx: &Context, module: OpId) -> Result<String, RunError> {
    morf_passes::target::ptx::emit_module(ctx, module, &morf_passes::target::ptx::PtxOptions::default())
        .map_err(|d| RunError::Diagnostic(ctx.render(&d)))
}

/// Turns a runtime error into a run error; a missing driver reads "no GPU: ...".
pub fn runtime_err(e: RuntimeError) -> RunError {
    match e {
        RuntimeError::NoCuda(m) => RunError::Other(format!("no GPU: {m}")),
        e => RunError::Other(format!("GPU: {e}")),
    }
}

fn exec_err(ctx: &Context, e: ExecError) -> RunError {
    match e {
        ExecError::Runtime(e) => runtime_err(e),
        ExecError::Diagnostic(d) => RunError::Diagnostic(ctx.render(&d)),
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
}

/// Parses `text`, lowers it with `pipeline` unless it already has kernels, emits PTX and
/// loads it on `gpu`. `entry` picks the host function (by the original name).
pub fn compile_for_gpu(
    gpu: &Gpu,
    name: &str,
    text: &str,
    entry: Option<&str>,
    allow_unregistered_dialect: bool,
    pipeline: &str,
    hints: Option<&str>,
) -> Result<GpuProgram, RunError> {
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
        .ok_or_else(|| RunError::Other(format!("the '{pipeline}' pipeline left no host function @{fname}")))?;
    // A host function may launch no kernel at all (it returns an argument, or only
    // reshapes): it still runs, on a PTX module that holds no entry.
    let kernels = kernel_names(&ctx, module);
    let ptx = emit_ptx(&ctx, module)?;
    let compile_time = t0.elapsed();
    let names: Vec<&str> = kernels.iter().map(String::as_str).collect();
    let loaded = gpu.load_ptx(&ptx, &names).map_err(runtime_err)?;
    Ok(GpuProgram { ctx, module, func, ptx, kernels, loaded, compile_time })
}

impl GpuProgram {
    /// An executor of the host function.
    pub fn executor<'a>(&'a self, gpu: &'a Gpu) -> GpuExecutor<'a> {
        GpuExecutor::new(gpu, &self.loaded, &self.ctx, self.func)
    }

    /// Uploads `args` (bound in another context) as arguments of the host function.
    pub fn upload_args(&self, exec: &mut GpuExecutor<'_>, args: &[RtValue]) -> Result<Vec<DevValue>, RunError> {
        let block = self
            .ctx
            .regions(self.func)
            .first()
            .and_then(|r| self.ctx.entry_block(*r))
            .ok_or_else(|| RunError::Other("host function has no body".into()))?;
        let params = self.ctx.block_args(block).to_vec();
        if params.len() != args.len() {
            return Err(RunError::Other(format!(
                "the host function takes {} arguments but {} were bound",
                params.len(),
                args.len()
            )));
        }
        let mut out = Vec::with_capacity(args.len());
        for (p, a) in params.iter().zip(args) {
            let ty = self.ctx.value_type(*p);
            let elem = morf_loop::buffer_parts(&self.ctx, ty).map(|(_, e)| e).unwrap_or(ty);
            out.push(exec.upload(a, elem).map_err(|e| exec_err(&self.ctx, e))?);
        }
        Ok(out)
    }

    /// Runs the host function once, waits for it, and downloads its results.
    ///
    /// Before anything is allocated on the device, the buffers the call needs
    /// ([`crate::memory::device_bytes`]) are checked against the device's free memory
    /// ([`Gpu::mem_info`]); a kernel that fails asynchronously is reported with the
    /// kernels of the call.
    pub fn run(&self, gpu: &Gpu, args: &[RtValue]) -> Result<Vec<RtValue>, RunError> {
        self.check_device_memory(gpu, args)?;
        let mut exec = self.executor(gpu);
        let dev_args = self.upload_args(&mut exec, args)?;
        let results = exec.call(&dev_args).map_err(|e| exec_err(&self.ctx, e))?;
        let after = |e: RuntimeError| {
            RunError::Other(format!(
                "GPU: {e} (after launching {}: {})",
                plural(exec.launches),
                self.kernels.join(", ")
            ))
        };
        gpu.synchronize().map_err(after)?;
        results.iter().map(|r| exec.download(r).map_err(|e| exec_err(&self.ctx, e))).collect()
    }

    /// The device bytes a call on `args` needs, estimated from the host function.
    pub fn device_bytes(&self, args: &[RtValue]) -> u64 {
        let shapes: Vec<Vec<usize>> = args.iter().map(rt_shape).collect();
        let ctx = &self.ctx;
        crate::memory::device_bytes(ctx, self.func, &shapes, &|t| {
            DevElem::of(ctx, t).map(|e| e.size() as u64).unwrap_or(8)
        })
    }

    /// An error when the call on `args` needs more device memory than is free.
    pub fn check_device_memory(&self, gpu: &Gpu, args: &[RtValue]) -> Result<(), RunError> {
        let need = self.device_bytes(args);
        let (free, total) = gpu.mem_info().map_err(runtime_err)?;
        check_device_fits(need, free as u64, total as u64)
    }
}

/// The error of a run that needs `need` bytes of device memory when `free` of `total` are free.
pub fn check_device_fits(need: u64, free: u64, total: u64) -> Result<(), RunError> {
    if need <= free {
        return Ok(());
    }
    Err(RunError::Other(format!(
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

/// The comparison of one output with the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputCheck {
    /// Position among the results.
    pub index: usize,
    /// Relative L2 error over the finite positions (NaN when the shapes differ).
    pub rel_err: f64,
    /// The tolerance of the output's element type.
    pub tol: f64,
    /// Why the output fails whatever its error (a shape mismatch, a NaN or infinity
    /// where the reference has another value), if so.
    pub note: Option<String>,
}

impl OutputCheck {
    /// `rel_err <= tol` (NaN never passes).
    pub fn ok(&self) -> bool {
        self.rel_err <= self.tol && self.note.is_none()
    }
}

impl std::fmt::Display for OutputCheck {
    /// `check result0: rel_err=1.2e-03 (tol 1e-02) ok`
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "check result{}: rel_err={} (tol {}) {}",
            self.index,
            sci(self.rel_err, 1),
            sci(self.tol, 0),
            if self.ok() { "ok" } else { "FAILED" }
        )?;
        if let Some(n) = &self.note {
            write!(f, " ({n})")?;
        }
        Ok(())
    }
}

/// `x` in C's `%.*e` style, with a two-digit exponent: `sci(0.0012, 1)` is `1.2e-03`.
pub fn sci(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return format!("{x}").to_lowercase();
    }
    let s = format!("{x:.digits$e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let e: i32 = e.parse().unwrap_or(0);
            format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
        }
        None => s,
    }
}

fn shape_and_data(v: &RtValue) -> Option<(Vec<usize>, Vec<f64>)> {
    match v {
        RtValue::Tensor { array, .. } => Some((array.shape.clone(), array.data.clone())),
        RtValue::Buffer { data, .. } => {
            let a = data.borrow();
            Some((a.shape.clone(), a.data.clone()))
        }
        RtValue::Float(x) => Some((vec![], vec![*x])),
        RtValue::Int(i) => Some((vec![], vec![*i as f64])),
    }
}

/// The comparison of one output's values with the reference's ([`compare_values`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueComparison {
    /// Relative L2 error over the positions where both values are finite (NaN when the
    /// lengths differ).
    pub rel_err: f64,
    /// Why the output fails whatever the error: a NaN or an infinity where the reference
    /// has another value (the count and the first position).
    pub mismatch: Option<String>,
}

/// Compares `out` with `reference` value by value. Positions where both are NaN, or both
/// the same infinity, agree and are left out of the relative L2 error, which is computed
/// over the remaining (finite) positions. A NaN or an infinity on one side only, or
/// infinities of opposite signs, is a mismatch: the output fails.
pub fn compare_values(out: &[f64], reference: &[f64]) -> ValueComparison {
    if out.len() != reference.len() {
        return ValueComparison {
            rel_err: f64::NAN,
            mismatch: Some(format!("{} values but the reference has {}", out.len(), reference.len())),
        };
    }
    let mut bad = 0usize;
    let mut first: Option<(usize, f64, f64)> = None;
    let mut special = 0usize;
    for (i, (&o, &r)) in out.iter().zip(reference).enumerate() {
        if o.is_finite() && r.is_finite() {
            continue;
        }
        special += 1;
        let agree = (o.is_nan() && r.is_nan()) || (o.is_infinite() && o == r);
        if !agree {
            bad += 1;
            first.get_or_insert((i, o, r));
        }
    }
    let rel_err = if special == 0 {
        morf_ir::numerics::relative_error(out, reference)
    } else {
        let (o, r): (Vec<f64>, Vec<f64>) =
            out.iter().zip(reference).filter(|(o, r)| o.is_finite() && r.is_finite()).map(|(o, r)| (*o, *r)).unzip();
        morf_ir::numerics::relative_error(&o, &r)
    };
    let mismatch = first.map(|(i, o, r)| {
        format!(
            "{bad} value(s) non-finite where the reference differs; first: element {i} is {} where the reference is {}",
            fmt_value(o),
            fmt_value(r)
        )
    });
    ValueComparison { rel_err, mismatch }
}

fn fmt_value(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{x}")
    }
}

/// The tolerance of an output's own element type (f32/f64 1e-5, bf16/f16 1e-2; exact
/// for integers).
fn tolerance_of(out_ctx: &Context, out: Option<&RtValue>) -> f64 {
    match out {
        Some(RtValue::Tensor { elem, .. }) | Some(RtValue::Buffer { elem, .. }) => match DevElem::of(out_ctx, *elem) {
            Some(DevElem::Float(k)) => morf_ir::numerics::tolerance(k),
            _ => 0.0,
        },
        Some(RtValue::Float(_)) => morf_ir::numerics::tolerance(FloatKind::F32),
        _ => 0.0,
    }
}

/// Compares `out` (in `out_ctx`) with `reference`, output by output: relative L2 error
/// against the tolerance of each output's element type (f32/f64 1e-5, bf16/f16 1e-2;
/// integers must match exactly), with NaN and infinities compared by position
/// ([`compare_values`]).
pub fn compare_outputs(out_ctx: &Context, out: &[RtValue], reference: &[RtValue]) -> Vec<OutputCheck> {
    compare_outputs_judged(out_ctx, out, reference, &[])
}

/// [`compare_outputs`], with output `i` judged by the tolerance of `precisions[i]` where it
/// is given: the least precise float type on the output's way through the reference program
/// ([`morf_ir::numerics::result_precisions`] of the reference function), so that an f32
/// output computed through f16 values gets the f16 tolerance.
pub fn compare_outputs_judged(
    out_ctx: &Context,
    out: &[RtValue],
    reference: &[RtValue],
    precisions: &[Option<FloatKind>],
) -> Vec<OutputCheck> {
    let mut checks = Vec::new();
    for i in 0..out.len().max(reference.len()) {
        let tol = match (precisions.get(i).copied().flatten(), out.get(i)) {
            (Some(k), Some(RtValue::Tensor { elem, .. } | RtValue::Buffer { elem, .. }))
                if out_ctx.float_kind(*elem).is_some() =>
            {
                morf_ir::numerics::tolerance(k)
            }
            (Some(k), Some(RtValue::Float(_))) => morf_ir::numerics::tolerance(k),
            _ => tolerance_of(out_ctx, out.get(i)),
        };
        let (o, r) = (out.get(i).and_then(shape_and_data), reference.get(i).and_then(shape_and_data));
        let check = match (o, r) {
            (Some((so, o)), Some((sr, r))) if so == sr => {
                let c = compare_values(&o, &r);
                OutputCheck { index: i, rel_err: c.rel_err, tol, note: c.mismatch }
            }
            (Some((so, _)), Some((sr, _))) => OutputCheck {
                index: i,
                rel_err: f64::NAN,
                tol,
                note: Some(format!("shape {so:?} but the reference has {sr:?}")),
            },
            _ => OutputCheck { index: i, rel_err: f64::NAN, tol, note: Some("missing output".into()) },
        };
        checks.push(check);
    }
    checks
}

/// What a GPU run did.
pub struct GpuRunReport {
    /// The usual report (results written, warnings, time of the GPU call).
    pub run: RunReport,
    /// The device's name.
    pub device: String,
    /// One entry per output when `check` was asked.
    pub checks: Vec<OutputCheck>,
    /// Kernel launches run on the CPU simulator (`None` for a GPU run).
    pub launches: Option<usize>,
}

/// Runs `text` on GPU 0 as `opts` says, writes the results, and with `check` compares
/// them with the reference interpreter run of the original function.
pub fn run_source_gpu(name: &str, text: &str, opts: &RunOptions, check: bool) -> Result<GpuRunReport, RunError> {
    let gpu = Gpu::new(0).map_err(runtime_err)?;
    let device = gpu.device_name().unwrap_or_else(|_| "?".into());
    // Reference context: the function as written; arguments are bound here.
    let mut rctx = new_context(opts.allow_unregistered_dialect);
    let rmodule = load_module(&mut rctx, name, text)?;
    let mut warnings: Vec<String> = rctx.take_emitted().iter().map(|d| rctx.render(d).trim_end().to_string()).collect();
    let rfunc = select_function(&rctx, rmodule, opts.entry.as_deref(), name)?;
    if let Some(limit) = &opts.max_memory {
        // Host memory: the inputs, and with --check the reference run.
        let est = if check {
            crate::estimate_interpreter_run(&rctx, rfunc, opts)?
        } else {
            let shapes = crate::plan_arguments(&rctx, rfunc, opts)?;
            let mut e = crate::memory::MemoryEstimate::default();
            let bytes = shapes.iter().map(|s| s.iter().fold(8u64, |a, &d| a.saturating_mul(d as u64))).sum();
            e.add("inputs", bytes);
            e
        };
        est.check(limit)?;
    }
    let inner = RunOptions { max_memory: None, ..opts.clone() };
    let (args, arg_warnings) = bind_arguments(&rctx, rfunc, &inner)?;
    warnings.extend(arg_warnings);

    // Specialize for the sizes this run has, as a JIT would (the kernels keep run-time
    // guards, so the program stays correct for other sizes).
    let hints = size_hints_from_args(&rctx, rfunc, &args);
    let prog = compile_for_gpu(
        &gpu,
        name,
        text,
        opts.entry.as_deref(),
        opts.allow_unregistered_dialect,
        GPU_PIPELINE,
        hints.as_deref(),
    )?;
    tracing::info!("compiled {} kernel(s) in {:?} for {device}", prog.kernels.len(), prog.compile_time);
    let t = Instant::now();
    let results = prog.run(&gpu, &args)?;
    let run_time = t.elapsed();
    let checks = if check {
        let reference =
            morf_ir::interp::run_function(&rctx, rfunc, args).map_err(|d| RunError::Diagnostic(rctx.render(&d)))?;
        compare_outputs_judged(&prog.ctx, &results, &reference, &morf_ir::numerics::result_precisions(&rctx, rfunc))
    } else {
        Vec::new()
    };
    let summaries = write_results(&prog.ctx, prog.func, &results, &opts.output_dir, opts.stats)?;
    let function = morf_ir::builtin::symbol_name(&prog.ctx, prog.func).unwrap_or("?").to_string();
    Ok(GpuRunReport {
        run: RunReport { function, warnings, results: summaries, run_time },
        device,
        checks,
        launches: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An f32 output computed through an f16 `tanh` is judged at the f16 tolerance; one
    /// that only converts a bf16 argument (exactly) keeps the f32 tolerance.
    #[test]
    fn outputs_are_judged_by_the_narrowest_type_on_their_way() {
        let text = r#"
func.func @f(%x: tensor<4xf32>, %b: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>) {
  %h = mtensor.convert %x : tensor<4xf32> to tensor<4xf16>
  %t = mtensor.tanh %h : tensor<4xf16>
  %y = mtensor.convert %t : tensor<4xf16> to tensor<4xf32>
  %z = mtensor.convert %b : tensor<4xbf16> to tensor<4xf32>
  %w = mtensor.add %z, %x : tensor<4xf32>
  func.return %y, %w, %b : tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>
}
"#;
        let mut ctx = crate::new_context(false);
        let m = crate::load_module(&mut ctx, "t.mlir", text).expect("parses");
        let f = crate::select_function(&ctx, m, None, "t.mlir").expect("one function");
        let p = morf_ir::numerics::result_precisions(&ctx, f);
        assert_eq!(p, vec![Some(FloatKind::F16), Some(FloatKind::F32), Some(FloatKind::BF16)]);
    }

    #[test]
    fn check_lines() {
        let c = OutputCheck { index: 0, rel_err: 1.2e-3, tol: 1e-2, note: None };
        assert_eq!(c.to_string(), "check result0: rel_err=1.2e-03 (tol 1e-02) ok");
        assert_eq!(sci(1.0, 0), "1e+00");
        assert_eq!(sci(f64::NAN, 1), "nan");
        let nan = OutputCheck { index: 1, rel_err: f64::NAN, tol: 1e-2, note: None };
        assert!(!nan.ok());
        assert!(nan.to_string().ends_with("FAILED"));
    }

    #[test]
    fn nan_and_inf_compare_by_position() {
        let nan = f64::NAN;
        let inf = f64::INFINITY;
        // Agreeing NaN positions pass; the error is over the other positions.
        let c = compare_values(&[1.0, nan, 3.0], &[1.0, nan, 3.0]);
        assert_eq!((c.rel_err, c.mismatch.clone()), (0.0, None));
        let c = compare_values(&[1.0, nan, 3.0 + 3e-6], &[1.0, nan, 3.0]);
        assert!(c.mismatch.is_none() && c.rel_err > 0.0 && c.rel_err < 1e-5, "{c:?}");
        // Both the same infinity agree; opposite signs do not.
        assert_eq!(
            compare_values(&[inf, 2.0, -inf], &[inf, 2.0, -inf]),
            ValueComparison { rel_err: 0.0, mismatch: None }
        );
        let c = compare_values(&[inf, 2.0], &[-inf, 2.0]);
        assert!(
            c.mismatch.as_deref().is_some_and(|m| m.contains("element 0 is inf where the reference is -inf")),
            "{c:?}"
        );
        // A NaN or inf where the reference has a number fails.
        let c = compare_values(&[1.0, nan], &[1.0, 2.0]);
        assert!(
            c.mismatch.as_deref().is_some_and(|m| m.contains("element 1 is NaN where the reference is 2")),
            "{c:?}"
        );
        let c = compare_values(&[inf, 1.0], &[5.0, 1.0]);
        assert!(c.mismatch.as_deref().is_some_and(|m| m.starts_with("1 value(s)")), "{c:?}");
        // A number where the reference has NaN fails too.
        let c = compare_values(&[1.0, 7.0, 8.0], &[1.0, nan, nan]);
        assert!(
            c.mismatch.as_deref().is_some_and(|m| m.starts_with("2 value(s)") && m.contains("element 1 is 7 where the reference is NaN")),
            "{c:?}"
        );
        // Different lengths.
        assert!(compare_values(&[1.0], &[1.0, 2.0]).rel_err.is_nan());
        // As an output check: the note makes it fail whatever the error.
        let check = OutputCheck { index: 0, rel_err: c.rel_err, tol: 1e-2, note: c.mismatch };
        assert!(!check.ok());
        assert!(check.to_string().contains("FAILED (2 value(s)"), "{check}");
    }

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
        if ctx.op_name(op) == "func.return" {
            return ctx
                .operands(op)
                .iter()
                .map(|v| m.get(ctx, *v).cloned())
                .collect::<Result<Vec<_>, _>>()
                .map(|r| (r, launches));
        }
        m.run_op(ctx, op)?;
        if ctx.op_name(op) == "mgpu.launch" {
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

/// Compiles `text` end to end like a GPU run (the `gpu` pipeline, then PTX emission, which
/// validates every kernel), but executes the host function on the CPU: each
/// `mgpu.launch` runs on the GPU simulator. With `check`, every output is compared with
/// the fp64 interpreter of the function as written. This is `--device auto` on a machine
/// without CUDA, and `--device sim` on a module without kernels.
///
/// With [`RunOptions::max_memory`], the reference run and the simulated run are
/// estimated together before any input is made.
pub fn run_source_sim_compiled(
    name: &str,
    text: &str,
    opts: &RunOptions,
    check: bool,
) -> Result<GpuRunReport, RunError> {
    let mut rctx = new_context(opts.allow_unregistered_dialect);
    let rmodule = load_module(&mut rctx, name, text)?;
    let mut warnings: Vec<String> = rctx.take_emitted().iter().map(|d| rctx.render(d).trim_end().to_string()).collect();
    let rfunc = select_function(&rctx, rmodule, opts.entry.as_deref(), name)?;
    let fname = morf_ir::builtin::symbol_name(&rctx, rfunc).unwrap_or("?").to_string();

    let rshapes = crate::plan_arguments(&rctx, rfunc, opts)?;
    let hints = size_hints_from_shapes(&rctx, rfunc, &rshapes);
    let mut ctx = new_context(opts.allow_unregistered_dialect);
    let module = load_module(&mut ctx, name, text)?;
    let _ = ctx.take_emitted();
    if !has_kernels(&ctx, module) {
        run_named_pipeline(&mut ctx, module, &pass_registry(), GPU_PIPELINE, hints.as_deref())?;
    }
    let ptx = emit_ptx(&ctx, module)?;
    tracing::info!("emitted {} bytes of PTX", ptx.len());
    let func = morf_ir::builtin::lookup_function(&ctx, module, &fname)
        .ok_or_else(|| RunError::Other(format!("the '{GPU_PIPELINE}' pipeline left no host function @{fname}")))?;
    if let Some(limit) = &opts.max_memory {
        let mut est = crate::estimate_interpreter_run(&ctx, func, opts)?;
        if check {
            est.add("reference values with inputs", crate::memory::interpreter_peak(&rctx, rfunc, &rshapes));
        }
        est.check(limit)?;
    }
    let inner = RunOptions { max_memory: None, ..opts.clone() };
    let rargs = if check { Some(bind_arguments(&rctx, rfunc, &inner)?.0) } else { None };
    let (args, arg_warnings) = bind_arguments(&ctx, func, &inner)?;
    warnings.extend(arg_warnings);
    let t = Instant::now();
    let (results, launches) =
        run_host_on_simulator(&ctx, func, args).map_err(|d| RunError::Diagnostic(ctx.render(&d)))?;
    let run_time = t.elapsed();
    let checks = match rargs {
        Some(rargs) => {
            let reference = morf_ir::interp::run_function(&rctx, rfunc, rargs)
                .map_err(|d| RunError::Diagnostic(rctx.render(&d)))?;
            compare_outputs_judged(&ctx, &results, &reference, &morf_ir::numerics::result_precisions(&rctx, rfunc))
        }
        None => Vec::new(),
    };
    let summaries = write_results(&ctx, func, &results, &opts.output_dir, opts.stats)?;
    Ok(GpuRunReport {
        run: RunReport { function: fname, warnings, results: summaries, run_time },
        device: "CPU (GPU simulator)".into(),
        checks,
        launches: Some(launches),
    })
}

/// `--device sim`: a module that already has kernels runs its host function with each
/// `mgpu.launch` on the CPU simulator (no lowering, no PTX: hand-written GPU-level files
/// may use what PTX emission does not); a module without kernels is first compiled
/// through the `gpu` pipeline ([`run_source_sim_compiled`]), and with `check` every
/// output is compared with the fp64 interpreter of the function as written. (A module
/// with kernels has no other reference than this simulation, so `check` compares nothing.)
pub fn run_source_sim(name: &str, text: &str, opts: &RunOptions, check: bool) -> Result<GpuRunReport, RunError> {
    if !text_has_kernels(name, text) {
        return run_source_sim_compiled(name, text, opts, check);
    }
    let mut ctx = new_context(opts.allow_unregistered_dialect);
    let module = load_module(&mut ctx, name, text)?;
    let mut warnings: Vec<String> = ctx.take_emitted().iter().map(|d| ctx.render(d).trim_end().to_string()).collect();
    let func = select_function(&ctx, module, opts.entry.as_deref(), name)?;
    let fname = morf_ir::builtin::symbol_name(&ctx, func).unwrap_or("?").to_string();
    let (args, arg_warnings) = bind_arguments(&ctx, func, opts)?;
    warnings.extend(arg_warnings);
    let t = Instant::now();
    let (results, launches) =
        run_host_on_simulator(&ctx, func, args).map_err(|d| RunError::Diagnostic(ctx.render(&d)))?;
    let run_time = t.elapsed();
    let summaries = write_results(&ctx, func, &results, &opts.output_dir, opts.stats)?;
    Ok(GpuRunReport {
        run: RunReport { function: fname, warnings, results: summaries, run_time },
        device: "CPU (GPU simulator)".into(),
        checks: Vec::new(),
        launches: Some(launches),
    })
}

#[cfg(test)]
mod hint_tests {
    use super::pipeline_with_hints;

    #[test]
    fn hints_reach_the_specialized_passes_only() {
        let p =
            "builtin.module(lower-tensor-to-loop,fuse-mixed-reductions,canonicalize,lower-loop-to-gpu{threads=128})";
        assert_eq!(
            pipeline_with_hints(p, "M=7,N=100"),
            "builtin.module(lower-tensor-to-loop,fuse-mixed-reductions{size-hints=M=7,N=100},canonicalize,\
lower-loop-to-gpu{size-hints=M=7,N=100 threads=128})"
        );
    }
}
