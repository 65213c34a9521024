//! Whole runs, as `morf-run` makes them: parse a source text, bind its arguments, run it
//! on the interpreter ([`run_source`]), the CPU GPU simulator ([`run_source_sim`],
//! [`run_source_sim_compiled`]) or the GPU ([`run_source_gpu`]), optionally check every
//! output against the fp64 interpreter, and write the results as `.npy` files.
//!
//! The reference and the compiled run use two contexts parsed from the same text: lowering
//! rewrites its module in place, and the reference must run the function as written.
//!
//! A compiled run specializes for size hints ([`crate::compile::resolve_size_hints`]): the
//! explicit hints (the `*_with_hints` functions, `morf-run --size-hints`), else the
//! module's `morf.size_hints` attribute, else the shapes of the actual inputs.

use std::time::Instant;

use morf_runtime::Gpu;

use crate::bind::{bind_arguments, load_module, new_context, select_function, write_results, RunOptions, RunReport};
use crate::check::{compare_outputs_judged, OutputCheck};
use crate::compile::{
    emit_ptx, has_kernels, lower_for_gpu, pass_registry, resolve_size_hints, run_host_on_simulator, run_named_pipeline,
    runtime_err, size_hints_from_args, size_hints_from_shapes, text_has_kernels, GPU_PIPELINE,
};
use crate::tuning::{pipeline_for_compile, DeviceKey, ProgramRef};

fn prog_ref(ctx: &morf_ir::Context, module: morf_ir::OpId, func: morf_ir::OpId) -> ProgramRef<'_> {
    ProgramRef { ctx, module, func }
}
use crate::EngineError;

/// Runs the IR `text` (named `name` in diagnostics) as `opts` says: parse, verify, pick
/// the function, bind its arguments, interpret it and write its results.
pub fn run_source(name: &str, text: &str, opts: &RunOptions) -> Result<RunReport, EngineError> {
    let mut ctx = new_context(opts.allow_unregistered_dialect);
    let module = load_module(&mut ctx, name, text)?;
    let mut warnings: Vec<String> = Vec::new();
    for d in ctx.take_emitted() {
        warnings.push(ctx.render(&d).trim_end().to_string());
    }
    let func = select_function(&ctx, module, opts.entry.as_deref(), name)?;
    let fname = morf_ir::builtin::symbol_name(&ctx, func).unwrap_or("?").to_string();
    let t0 = Instant::now();
    let (args, arg_warnings) = bind_arguments(&ctx, func, opts)?;
    warnings.extend(arg_warnings);
    tracing::debug!("bound {} argument(s) of @{fname} in {:?}", args.len(), t0.elapsed());
    let t1 = Instant::now();
    let results =
        morf_ir::interp::run_function(&ctx, func, args).map_err(|d| EngineError::Diagnostic(ctx.render(&d)))?;
    let run_time = t1.elapsed();
    tracing::info!("@{fname} ran in {run_time:?} on the interpreter");
    let results = write_results(&ctx, func, &results, &opts.output_dir, opts.stats)?;
    Ok(RunReport { function: fname, warnings, results, run_time })
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
pub fn run_source_gpu(name: &str, text: &str, opts: &RunOptions, check: bool) -> Result<GpuRunReport, EngineError> {
    run_source_gpu_with_hints(name, text, opts, check, None)
}

/// [`run_source_gpu`] with explicit size hints (`M=576000,N=384`, `morf-run --size-hints`),
/// which win over the module's `morf.size_hints` attribute and the shapes of the inputs.
pub fn run_source_gpu_with_hints(
    name: &str,
    text: &str,
    opts: &RunOptions,
    check: bool,
    size_hints: Option<&str>,
) -> Result<GpuRunReport, EngineError> {
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
    // guards, so the program stays correct for other sizes), unless the module's
    // `morf.size_hints` attribute says otherwise.
    let hints = resolve_size_hints(&rctx, rmodule, size_hints, size_hints_from_args(&rctx, rfunc, &args))?;
    // A tuned schedule for this program, bucket and GPU, if the cache has one.
    let key = DeviceKey::of(&gpu).map_err(runtime_err)?;
    let (pipeline, hints, note) = pipeline_for_compile(
        &opts.tuning,
        true,
        prog_ref(&rctx, rmodule, rfunc),
        GPU_PIPELINE,
        hints.as_deref(),
        &key,
    )?;
    if let Some(n) = note {
        tracing::info!("{n}");
    }
    let mut lowered =
        lower_for_gpu(name, text, opts.entry.as_deref(), opts.allow_unregistered_dialect, &pipeline, hints.as_deref())?;
    if let Some((file, ptx)) = &opts.ptx {
        lowered = lowered.with_ptx(ptx.clone(), file)?;
        tracing::info!("kernels from {file} instead of morf's PTX");
    }
    let prog = lowered.load(&gpu)?;
    tracing::info!("compiled {} kernel(s) in {:?} for {device}", prog.kernels.len(), prog.compile_time);
    let t = Instant::now();
    let results = prog.run(&gpu, &args)?;
    let run_time = t.elapsed();
    let checks = if check {
        let reference =
            morf_ir::interp::run_function(&rctx, rfunc, args).map_err(|d| EngineError::Diagnostic(rctx.render(&d)))?;
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
) -> Result<GpuRunReport, EngineError> {
    run_source_sim_compiled_with_hints(name, text, opts, check, None)
}

/// [`run_source_sim_compiled`] with explicit size hints, which win over the module's
/// `morf.size_hints` attribute and the shapes of the inputs.
pub fn run_source_sim_compiled_with_hints(
    name: &str,
    text: &str,
    opts: &RunOptions,
    check: bool,
    size_hints: Option<&str>,
) -> Result<GpuRunReport, EngineError> {
    if let Some((file, _)) = &opts.ptx {
        return Err(EngineError::Other(format!(
            "{file}: PTX is only loaded on a GPU (--device gpu); the simulator runs the kernels' IR"
        )));
    }
    let mut rctx = new_context(opts.allow_unregistered_dialect);
    let rmodule = load_module(&mut rctx, name, text)?;
    let mut warnings: Vec<String> = rctx.take_emitted().iter().map(|d| rctx.render(d).trim_end().to_string()).collect();
    let rfunc = select_function(&rctx, rmodule, opts.entry.as_deref(), name)?;
    let fname = morf_ir::builtin::symbol_name(&rctx, rfunc).unwrap_or("?").to_string();

    let rshapes = crate::plan_arguments(&rctx, rfunc, opts)?;
    let hints = resolve_size_hints(&rctx, rmodule, size_hints, size_hints_from_shapes(&rctx, rfunc, &rshapes))?;
    let mut ctx = new_context(opts.allow_unregistered_dialect);
    let module = load_module(&mut ctx, name, text)?;
    let _ = ctx.take_emitted();
    if !has_kernels(&ctx, module) {
        // The simulator consults a cache only when one is given, with the H200 as the device.
        let (pipeline, hints, note) = pipeline_for_compile(
            &opts.tuning,
            false,
            prog_ref(&rctx, rmodule, rfunc),
            GPU_PIPELINE,
            hints.as_deref(),
            &DeviceKey::default_target(),
        )?;
        if let Some(n) = note {
            tracing::info!("{n}");
        }
        run_named_pipeline(&mut ctx, module, &pass_registry(), &pipeline, hints.as_deref())?;
    }
    let ptx = emit_ptx(&ctx, module)?;
    tracing::info!("emitted {} bytes of PTX", ptx.len());
    let func = morf_ir::builtin::lookup_function(&ctx, module, &fname)
        .ok_or_else(|| EngineError::Other(format!("the '{GPU_PIPELINE}' pipeline left no host function @{fname}")))?;
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
        run_host_on_simulator(&ctx, func, args).map_err(|d| EngineError::Diagnostic(ctx.render(&d)))?;
    let run_time = t.elapsed();
    let checks = match rargs {
        Some(rargs) => {
            let reference = morf_ir::interp::run_function(&rctx, rfunc, rargs)
                .map_err(|d| EngineError::Diagnostic(rctx.render(&d)))?;
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
pub fn run_source_sim(name: &str, text: &str, opts: &RunOptions, check: bool) -> Result<GpuRunReport, EngineError> {
    run_source_sim_with_hints(name, text, opts, check, None)
}

/// [`run_source_sim`] with explicit size hints for the compile of a module without
/// kernels (a module with kernels is not compiled, so they change nothing).
pub fn run_source_sim_with_hints(
    name: &str,
    text: &str,
    opts: &RunOptions,
    check: bool,
    size_hints: Option<&str>,
) -> Result<GpuRunReport, EngineError> {
    if !text_has_kernels(name, text) {
        return run_source_sim_compiled_with_hints(name, text, opts, check, size_hints);
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
        run_host_on_simulator(&ctx, func, args).map_err(|d| EngineError::Diagnostic(ctx.render(&d)))?;
    let run_time = t.elapsed();
    let summaries = write_results(&ctx, func, &results, &opts.output_dir, opts.stats)?;
    Ok(GpuRunReport {
        run: RunReport { function: fname, warnings, results: summaries, run_time },
        device: "CPU (GPU simulator)".into(),
        checks: Vec::new(),
        launches: Some(launches),
    })
}
